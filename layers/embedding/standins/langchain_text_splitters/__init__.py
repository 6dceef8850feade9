"""Stand-in for langchain-text-splitters: voyageai's default chunker for contextualized
embeddings, which Spotter never asks for."""

from _embedding_standin import StandInError


class RecursiveCharacterTextSplitter:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise StandInError("langchain-text-splitters (RecursiveCharacterTextSplitter)")

    @classmethod
    def from_tiktoken_encoder(cls, *args: object, **kwargs: object) -> object:
        raise StandInError("langchain-text-splitters (RecursiveCharacterTextSplitter)")
