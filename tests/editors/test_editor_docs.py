"""The editor configurations of docs/editors.md ("Starting the server") as far as they can be
checked here: the Lua parses (with the installed Neovim's LuaJIT), the Helix TOML loads and
starts `playbook-ls serve`, the Emacs Lisp is balanced, and the settings the server reads are
all described under "Client settings"."""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "editors.md"
SETTINGS_READERS = sorted((ROOT / "playbook_ls" / "lsp").glob("*.py"))
# Read by a loop over the key names rather than by `options.get("...")`.
LOOPED_KEYS = {"select", "ignore"}
PARSE_LUA = ("lua local chunk, err = loadfile(os.getenv('PLAYBOOK_LS_SNIPPET'))"
             " if not chunk then io.stderr:write(err) vim.cmd('cq') end")


def _section(heading: str) -> str:
    """A level-2 section of docs/editors.md, its subsections included."""
    text = DOC.read_text()
    start = text.index(f"\n{heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", _section("## Starting the server"), re.S | re.M)


def _documented_keys() -> set[str]:
    rows = re.findall(r"^\| (`.*?) \|", _section("## Client settings"), re.M)
    return {key for row in rows for key in re.findall(r"`(\w+)`", row)}


def _slug(heading: str) -> str:
    return re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", heading.strip().lower()))


def test_lua_configurations_parse(tmp_path: Path, nvim: str) -> None:
    blocks = _blocks("lua")
    assert len(blocks) == 4, "Neovim 0.11+, nvim-lspconfig, Neovim 0.8-0.10, Neovim 0.7"
    env = {**os.environ, "PLAYBOOK_LS_SNIPPET": "",
           **{f"XDG_{kind}_HOME": str(tmp_path / kind.lower()) for kind in ("CONFIG", "DATA", "STATE", "CACHE")}}
    for number, code in enumerate(blocks):
        assert '"playbook-ls", "serve"' in code, code
        snippet = tmp_path / f"snippet{number}.lua"
        snippet.write_text(code)
        env["PLAYBOOK_LS_SNIPPET"] = str(snippet)
        done = subprocess.run([nvim, "--headless", "--clean", "-n", "-u", "NONE", "-i", "NONE",
                               "-c", PARSE_LUA, "-c", "qa!"], env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"{done.stderr}\n{code}"
    assert 'vim.lsp.enable("playbook_ls")' in blocks[0]
    # settings are nested under the server's name; Neovim 0.7 sends none, only init_options (flat)
    assert all('["playbook-ls"] = {' in code for code in blocks[:3]), "settings are nested under the server's name"
    assert "init_options = {" in blocks[3] and "settings" not in blocks[3]


def test_configurations_start_from_the_defaults() -> None:
    """A snippet copied as it is checks every rule: narrowing the rules is an option shown apart."""
    for language in ("lua", "toml", "elisp"):
        for code in _blocks(language):
            assert "select" not in code and "ignore" not in code, code


def test_helix_configuration_starts_the_server_for_yaml() -> None:
    (block,) = _blocks("toml")
    config = tomllib.loads(block)
    server = config["language-server"]["playbook-ls"]
    assert (server["command"], server["args"]) == ("playbook-ls", ["serve"])
    assert set(server.get("config", {})) <= _documented_keys()
    (yaml,) = [language for language in config["language"] if language["name"] == "yaml"]
    assert "playbook-ls" in yaml["language-servers"]


def _balanced(code: str) -> bool:
    """Parentheses and brackets balanced outside strings and `;` comments."""
    depth, in_string, escaped = 0, False, False
    for line in code.splitlines():
        for char in line:
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
            elif char == ";":
                break
            elif char == '"':
                in_string = True
            elif char in "([":
                depth += 1
            elif char in ")]":
                depth -= 1
                if depth < 0:
                    return False
    return depth == 0 and not in_string


def test_eglot_configurations_are_balanced() -> None:
    blocks = _blocks("elisp")
    assert len(blocks) == 2, "eglot-server-programs, .dir-locals.el"
    for code in blocks:
        assert _balanced(code), code
    assert '("playbook-ls" "serve")' in blocks[0]
    assert "(:playbook-ls (" in blocks[1]


def test_every_setting_the_server_reads_is_described() -> None:
    read = {key for path in SETTINGS_READERS
            for key in re.findall(r"options\.get\(\s*\"(\w+)\"", path.read_text())} | LOOPED_KEYS
    assert {"config", "rolesPath", "confirmRun", "profilesFile"} <= read, "the server's option names moved"
    documented = _documented_keys()
    assert read <= documented, f"not in docs/editors.md, Client settings: {sorted(read - documented)}"
    intro = _section("## Starting the server").split("\n### ")[0]
    for key in ("config", "select", "ignore", "rolesPath", "confirmRun", "profilesFile"):
        assert f"`{key}`" in intro


@pytest.mark.parametrize("heading", ["## Starting the server", "## Client settings"])
def test_links_within_the_page_resolve(heading: str) -> None:
    anchors = {_slug(line.lstrip("#")) for line in DOC.read_text().splitlines() if line.startswith("#")}
    for anchor in re.findall(r"\]\(#([\w-]+)\)", _section(heading)):
        assert anchor in anchors, anchor
