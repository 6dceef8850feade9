"""The help articles shipped in `spotter/help/articles`: `# Title`, a `tags:` line, the body."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ARTICLES_DIR = Path(__file__).parent / "articles"


@dataclass(frozen=True)
class Article:
    slug: str
    title: str
    tags: tuple[str, ...]
    body: str

    @property
    def text(self) -> str:
        """What is searched and embedded: title, tags and body."""
        return f"{self.title}\n{', '.join(self.tags)}\n\n{self.body}"

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def parse_article(slug: str, source: str) -> Article:
    lines = source.strip().splitlines()
    if len(lines) < 3 or not lines[0].startswith("# ") or not lines[1].startswith("tags:"):
        raise ValueError(f"help article {slug}: expected '# Title', 'tags: ...', then the body")
    tags = tuple(t.strip() for t in lines[1].removeprefix("tags:").split(",") if t.strip())
    body = "\n".join(lines[2:]).strip()
    if not body:
        raise ValueError(f"help article {slug}: the body is empty")
    return Article(slug, lines[0].removeprefix("# ").strip(), tags, body)


@cache
def load_corpus(directory: Path = ARTICLES_DIR) -> tuple[Article, ...]:
    """Every article, by slug (the file name), parsed once per process."""
    return tuple(
        parse_article(path.stem, path.read_text(encoding="utf-8"))
        for path in sorted(directory.glob("*.md"))
    )
