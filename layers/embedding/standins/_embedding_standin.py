"""What every stand-in raises (see README.md beside it)."""


class StandInError(RuntimeError):
    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} is not in Spotter's embedding layer: it embeds text only"
            " (layers/embedding/standins/README.md)"
        )
