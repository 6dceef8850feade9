"""Stand-in for `PIL.ImageFile` (imported by voyageai's multimodal inputs; never used for text)."""

from _embedding_standin import StandInError


class ImageFile:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise StandInError("pillow (PIL.ImageFile)")
