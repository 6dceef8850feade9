"""Stand-in for `PIL.Image`: the `Image` type voyageai checks inputs against, and nothing else."""

from _embedding_standin import StandInError


class Image:
    """No value is ever an instance: voyageai's `isinstance(item, Image)` is False for text."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise StandInError("pillow (PIL.Image)")


def open(*args: object, **kwargs: object) -> Image:
    raise StandInError("pillow (PIL.Image.open)")
