"""The MCP tool lists the layer build writes: one per list the server serves, read back as the
very tools the code builds, with no tool module imported and no schema generated for a list."""

from __future__ import annotations

from pathlib import Path

import pytest

from spotter.mcp import catalog
from spotter.mcp.catalog import CatalogKey, catalog_at, catalog_keys, write_prebuilt
from spotter.mcp.toolsets import TOOLSETS


def test_every_list_the_server_serves_is_written_once() -> None:
    keys = catalog_keys()
    assert len(keys) == len({key.file_name for key in keys}) == 3 * 4 * (len(TOOLSETS) + 1) * 2
    assert {key.role for key in keys} == {"owner", "admin", "coach"}  # a member is served none


def test_a_written_list_reads_back_as_the_tools_the_code_builds(tmp_path: Path) -> None:
    written = write_prebuilt(tmp_path)
    assert sorted(p.name for p in written) == sorted(k.file_name for k in catalog_keys())
    for key in catalog_keys():
        built, read = catalog_at(key, None), catalog_at(key, tmp_path)
        assert read.tools == built.tools, key
        assert (tmp_path / key.file_name).read_text() == built.tools_json == read.tools_json


def test_listing_from_the_written_file_builds_no_schema_nor_loads_the_specs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_prebuilt(tmp_path)
    key = CatalogKey("coach", True, True, "programming", writes=True)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("built on the list path")

    monkeypatch.setattr(catalog, "input_schema", refuse)
    monkeypatch.setattr(catalog, "registry_for", refuse)
    read = catalog_at(key, tmp_path)
    assert "workouts_parse" in {tool.name for tool in read.tools}
    with pytest.raises(AssertionError, match="built on the list path"):
        _ = read.specs  # the specs load when a call first needs them


def test_without_a_written_file_the_list_is_built(tmp_path: Path) -> None:
    key = CatalogKey("owner", False, True)
    assert catalog_at(key, tmp_path).tools == catalog_at(key, None).tools
