"""LSP glue for the code lenses and the commands they carry (listing tasks, effective tags).

The lenses themselves come from :mod:`playbook_ls.features.lenses`; the run lenses' commands
are handled in :mod:`playbook_ls.lsp.running`.
"""

from __future__ import annotations

import os
from typing import Any

from lsprotocol import types

from playbook_ls.features import LIST_TASKS, SHOW_EFFECTIVE_TAGS, SHOW_PLAN, SHOW_REVIEW
from playbook_ls.features.convert import lsp_range, uri_to_path
from playbook_ls.lsp.presenting import present
from playbook_ls.lsp.server import PlaybookServer, command_args, guarded, invalid_params, query


def register(server: PlaybookServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    @query(default=[])
    def on_code_lens(ls: PlaybookServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        if ls.index is None:
            return []
        from playbook_ls.features import lenses

        path = uri_to_path(params.text_document.uri)
        lines = ls.lines(path)
        return [types.CodeLens(range=lsp_range(lens.span, lines, ls.encoding),
                               command=types.Command(title=lens.title, command=lens.command,
                                                     arguments=lens.arguments, tooltip=lens.tooltip))
                for lens in lenses.lenses(ls.index, path)]

    @server.command(LIST_TASKS)
    @guarded()
    def list_tasks(ls: PlaybookServer, *args: Any) -> Any:
        from playbook_ls.features import lenses

        request = command_args(list(args))
        if ls.index is None:
            return None
        result = lenses.list_tasks(ls.index, request)
        name = os.path.basename(request.get("path", "")) or "workspace"
        present(ls, f"list-tasks-{name}", f"playbook-ls: tasks of {name}", lenses.list_tasks_text(result))
        return result

    @server.command(SHOW_EFFECTIVE_TAGS)
    @guarded()
    def show_effective_tags(ls: PlaybookServer, *args: Any) -> Any:
        from playbook_ls.features import lenses

        request = command_args(list(args))
        if ls.index is None:
            return None
        path = request.get("path", "")
        line = request.get("line") or 0
        result = lenses.effective_tags(ls.index, path, line)
        name = f"{os.path.basename(path)}-{line + 1}"
        present(ls, f"tags-{name}", f"playbook-ls: effective tags at {os.path.basename(path)}:{line + 1}",
                lenses.effective_tags_text(result))
        return result

    @server.command(SHOW_PLAN)
    async def show_plan(ls: PlaybookServer, *args: Any) -> Any:
        """The plan is made by a child process (playbook_ls.features.plan_view), waited for in
        the query threads; the document is shown from the event loop."""
        import asyncio
        import functools

        from playbook_ls.features.plan_view import plan_text

        request = command_args(list(args))
        playbook, inventory = request.get("path"), request.get("inventory") or ls.options.get("inventory")
        if not isinstance(playbook, str) or not playbook or ls.index is None:
            raise invalid_params("give {path: the playbook to plan, inventory?, tags?, skip_tags?}")
        if inventory is not None and not isinstance(inventory, str):
            raise invalid_params(f"'inventory' must be a string, not {type(inventory).__name__}")
        preview = ls.selection
        tags = request["tags"].split(",") if request.get("tags") else list(preview.tags) if preview else []
        skip = request["skip_tags"].split(",") if request.get("skip_tags") else \
            list(preview.skip_tags) if preview else []
        text = await asyncio.get_running_loop().run_in_executor(
            ls.queries, functools.partial(plan_text, ls.index.root, playbook, [inventory] if inventory else [], tags,
                                          skip, ls.trusted))
        present(ls, f"plan-{os.path.basename(playbook)}", f"playbook-ls: plan of {os.path.basename(playbook)}", text)
        return {"text": text}

    @server.command(SHOW_REVIEW)
    async def show_review(ls: PlaybookServer, *args: Any) -> Any:
        """What the branch changes in the run of a playbook, made by a child process
        (playbook_ls.features.review_view) waited for in the query threads."""
        import asyncio
        import functools

        from playbook_ls.features.review_view import playbooks_of, review_text, revision_problem

        request = command_args(list(args))
        playbook, inventory = request.get("path"), request.get("inventory") or ls.options.get("inventory")
        base = request.get("base")
        if not isinstance(playbook, str) or not playbook or ls.index is None:
            raise invalid_params("give {path: the playbook (or a file it reads) to review, base?: a git revision, "
                                 "inventory?}")
        for name, value in (("inventory", inventory), ("base", base)):
            if value is not None and not isinstance(value, str):
                raise invalid_params(f"'{name}' must be a string, not {type(value).__name__}")
        if base is not None and (problem := revision_problem(base)):
            raise invalid_params(problem)
        playbooks, sources = playbooks_of(ls.index, playbook), [inventory] if inventory else []
        text = await asyncio.get_running_loop().run_in_executor(
            ls.queries, functools.partial(review_text, ls.index.root, playbooks, base, sources))
        present(ls, f"review-{os.path.basename(playbook)}", f"playbook-ls: review of {os.path.basename(playbook)}",
                text)
        return {"text": text}
