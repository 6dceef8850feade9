"""Stand-in for numpy: voyageai imports it at import time (`voyageai.util`) to decode the base64
vectors it asks for by default; Spotter names the encoding itself, which voyageai hands back as it
is, and decodes the vectors with the standard library (spotter.providers.embeddings).

psycopg reads `numpy.integer` once a module named numpy is loaded (to dump numpy integers as
numerics too): here it is a type nothing is an instance of. Any other name raises."""

from typing import NoReturn

from _embedding_standin import StandInError


class integer:  # numpy's name
    def __new__(cls, *args: object, **kwargs: object) -> NoReturn:
        raise StandInError("numpy (numpy.integer)")


def __getattr__(name: str) -> object:
    if name.startswith("__"):  # hasattr(numpy, "__version__") and the like: plainly absent
        raise AttributeError(name)
    raise StandInError(f"numpy (numpy.{name})")
