"""git: a repository cloned to ``dest`` and checked out at ``version`` (HEAD, a branch, a tag or a
commit), or updated from its remote, with the git binary as ansible's module drives it: before and
after commits, local modifications refused unless ``force``, the remote URL kept in step, ls-remote
answers in check mode and the ``>> Newly checked out`` / ``git diff`` text in diff mode.
Shallow clones (``depth``), ``refspec``, ``reference``, bare repositories, separate git dirs,
archives, signature checks and submodules are refused rather than half done."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from typing import Any

from engine.run.modules import ModuleContext, ModuleError
from engine.run.modules._args import Arg, validate

SPEC = {
    "dest": Arg(type="path"),
    "repo": Arg(required=True, aliases=("name",)),
    "version": Arg(default="HEAD"),
    "remote": Arg(default="origin"),
    "refspec": Arg(),
    "reference": Arg(),
    "force": Arg(type="bool", default=False),
    "depth": Arg(type="int"),
    "clone": Arg(type="bool", default=True),
    "update": Arg(type="bool", default=True),
    "verify_commit": Arg(type="bool", default=False),
    "gpg_allowlist": Arg(type="list", default=[], aliases=("gpg_whitelist",)),
    "accept_hostkey": Arg(type="bool", default=False),
    "accept_newhostkey": Arg(type="bool", default=False),
    "key_file": Arg(type="path"),
    "ssh_opts": Arg(),
    "executable": Arg(type="path"),
    "bare": Arg(type="bool", default=False),
    "recursive": Arg(type="bool", default=True),
    "single_branch": Arg(type="bool", default=False),
    "track_submodules": Arg(type="bool", default=False),
    "umask": Arg(type="raw"),
    "archive": Arg(type="path"),
    "archive_prefix": Arg(),
    "separate_git_dir": Arg(type="path"),
}
_UNSUPPORTED = ("refspec", "reference", "depth", "verify_commit", "bare", "single_branch", "track_submodules",
                "umask", "archive", "archive_prefix", "separate_git_dir", "key_file", "ssh_opts", "accept_hostkey",
                "accept_newhostkey")
_LOCALE = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "LC_MESSAGES": "C.UTF-8", "LC_CTYPE": "C.UTF-8",
           "LANGUAGE": "C.UTF-8"}


class _Fail(Exception):
    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result.get("msg"))
        self.result = result


class _Git:
    def __init__(self, git: str, repo: str, dest: str, remote: str) -> None:
        self.git, self.repo, self.dest, self.remote = git, repo, dest, remote

    def run(self, command: str | list[str], cwd: str | None = None, check: bool = False) -> tuple[int, str, str]:
        argv = shlex.split(command) if isinstance(command, str) else command
        cwd = cwd if cwd and os.path.isdir(cwd) else None  # run_command ignores a cwd that is not there
        done = subprocess.run(argv, cwd=cwd, capture_output=True, check=False, env={**os.environ, **_LOCALE},
                              stdin=subprocess.DEVNULL)
        out, err = done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
        if check and done.returncode != 0:  # AnsibleModule.run_command(check_rc=True)
            shown = command if isinstance(command, str) else " ".join(command)
            raise _Fail({"changed": False, "failed": True, "cmd": shown, "rc": done.returncode, "stdout": out,
                         "stderr": err, "msg": err.rstrip()})
        return done.returncode, out, err

    def version(self, ref: str = "HEAD") -> str:
        return self.run(f"{self.git} rev-parse {ref}", cwd=self.dest)[1].rstrip("\n")

    def is_remote_branch(self, remote: str, version: str, cwd: str | None) -> bool:
        return version in self.run(f"{self.git} ls-remote {remote} -h refs/heads/{version}", cwd=cwd, check=True)[1]

    def is_remote_tag(self, remote: str, version: str, cwd: str | None) -> bool:
        return version in self.run(f"{self.git} ls-remote {remote} -t refs/tags/{version}", cwd=cwd, check=True)[1]

    def branches(self) -> list[str]:
        rc, out, err = self.run(f"{self.git} branch --no-color -a", cwd=self.dest)
        if rc != 0:
            raise _Fail({"changed": False, "failed": True, "msg": f"Could not determine branch data - received {out}",
                         "stdout": out, "stderr": err})
        return [line.strip() for line in out.split("\n") if line.strip()]

    def head_branch(self) -> str | None:
        repo_path = os.path.join(self.dest, ".git")
        headfile = os.path.join(repo_path, "HEAD")
        if any(b.startswith("* ") and ("no branch" in b or "detached from" in b or "detached at" in b)
               for b in self.branches()):
            headfile = os.path.join(repo_path, "refs", "remotes", self.remote, "HEAD")
        if not os.path.exists(headfile):
            return None
        with open(headfile) as handle:
            raw = handle.readline()
        if not raw:
            return None
        raw = raw.replace(f"refs/remotes/{self.remote}", "", 1)
        return raw.split(" ")[-1].split("/", 2)[-1].rstrip("\n")

    def remote_head(self, version: str, remote: str, cloning: bool) -> str:
        cwd = None if cloning else self.dest
        tag = False
        if version == "HEAD":
            command = f"{self.git} ls-remote {remote} -h HEAD" if cloning else \
                f"{self.git} ls-remote {remote} -h refs/heads/{self.head_branch()}"
        elif self.is_remote_branch(remote, version, cwd):
            command = f"{self.git} ls-remote {remote} -h refs/heads/{version}"
        elif self.is_remote_tag(remote, version, cwd):
            tag = True
            command = f"{self.git} ls-remote {remote} -t refs/tags/{version}*"
        else:
            return version
        rc, out, err = self.run(command, cwd=cwd, check=True)
        if len(out) < 1:
            raise _Fail({"changed": False, "failed": True, "msg": f"Could not determine remote revision for {version}",
                         "stdout": out, "stderr": err, "rc": rc})
        if tag:
            for line in out.split("\n"):
                if line.endswith(version + "^{}"):
                    out = line
                    break
                if line.endswith(version):
                    out = line
        return out.split()[0]

    def remote_url(self) -> str | None:
        rc, out, _ = self.run([self.git, "ls-remote", "--get-url", self.remote], cwd=self.dest)
        return None if rc != 0 else out.rstrip("\n")

    def set_remote_url(self) -> bool:
        current = self.remote_url()
        if current == self.repo or _unfrack(current) == _unfrack(self.repo):
            return False
        rc, out, err = self.run([self.git, "remote", "set-url", self.remote, self.repo], cwd=self.dest)
        if rc != 0:
            raise _Fail({"changed": False, "failed": True,
                         "msg": f"Failed to set a new url {self.repo} for {self.remote}: {out} {err}"})
        return current is not None

    def fetch(self, force: bool = False) -> None:
        self.set_remote_url()
        command = [self.git, "fetch", "--tags", *(["--force"] if force else []), self.remote]
        rc, out, err = self.run(command, cwd=self.dest)
        if rc != 0:
            raise _Fail({"changed": False, "failed": True,
                         "msg": f"Failed to download remote objects and refs: {out} {err}", "cmd": command})

    def switch_version(self, version: str) -> None:
        branch = None
        if version == "HEAD":
            branch = self.head_branch()
            rc, out, err = self.run(f"{self.git} checkout --force {branch}", cwd=self.dest)
            if rc != 0:
                raise _Fail({"changed": False, "failed": True, "msg": f"Failed to checkout branch {branch}",
                             "stdout": out, "stderr": err, "rc": rc})
            command = f"{self.git} reset --hard {self.remote}/{branch} --"
        elif self.is_remote_branch(self.remote, version, self.dest):
            local = version in self.branches() or f"* {version}" in self.branches()
            if not local:
                command = f"{self.git} checkout --track -b {version} {self.remote}/{version}"
            else:
                rc, out, err = self.run(f"{self.git} checkout --force {version}", cwd=self.dest)
                if rc != 0:
                    raise _Fail({"changed": False, "failed": True, "msg": f"Failed to checkout branch {version}",
                                 "stdout": out, "stderr": err, "rc": rc})
                command = f"{self.git} reset --hard {self.remote}/{version}"
        else:
            command = f"{self.git} checkout --force {version}"
        rc, out, err = self.run(command, cwd=self.dest)
        if rc != 0:
            what = f"Failed to checkout {version}" if version != "HEAD" else f"Failed to checkout branch {branch}"
            raise _Fail({"changed": False, "failed": True, "msg": what, "stdout": out, "stderr": err, "rc": rc,
                         "cmd": command})

    def diff(self, before: str | None, after: str) -> dict[str, Any]:
        if before is None:
            return {"prepared": f">> Newly checked out {after}"}
        if before == after:
            return {}
        self.fetch()
        rc, out, err = self.run(f"{self.git} diff {before} {after}", cwd=self.dest)
        if rc == 0 and out:
            return {"prepared": out}
        if rc == 0:
            return {"prepared": f">> No visual differences between {before} and {after}"}
        if err:
            return {"prepared": f">> Failed to get proper diff between {before} and {after}:\n>> {err}"}
        return {"prepared": f">> Failed to get proper diff between {before} and {after}"}


def _unfrack(path: str | None) -> str | None:
    if path is None:
        return None
    return os.path.normpath(os.path.realpath(os.path.expanduser(os.path.expandvars(path))))


NAMED = True  # its argument messages name the module as the task wrote it (AnsibleModule's _name)


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "git") -> dict[str, Any]:
    params = validate(action, args, SPEC, mutually_exclusive=(("separate_git_dir", "bare"),
                                                            ("accept_hostkey", "accept_newhostkey")))
    given = [name for name in _UNSUPPORTED if params[name] not in (None, False, [], "")]
    if given:
        raise ModuleError(f"playbook-ls's engine does not implement git's {', '.join(given)}; "
                          "run with --engine ansible to use ansible-playbook")
    git = params["executable"] or shutil.which("git")
    if not git:
        return {"changed": False, "failed": True, "msg": "Failed to find required executable \"git\" in paths: "
                + os.environ.get("PATH", "")}
    try:
        result = _run(params, ctx, git)
    except _Fail as failure:
        result = failure.result
    for stream in ("stdout", "stderr"):  # the action base adds the lines of a module's output
        if isinstance(result.get(stream), str) and f"{stream}_lines" not in result:
            result[f"{stream}_lines"] = result[stream].splitlines()
    return result


def _run(params: dict[str, Any], ctx: ModuleContext, git: str) -> dict[str, Any]:
    repo, dest, version, remote = params["repo"], params["dest"], params["version"], params["remote"]
    if os.path.expanduser(repo).startswith("/"):
        repo = "file://" + os.path.expanduser(repo)
    result: dict[str, Any] = {"changed": False}
    if not dest and params["clone"]:
        return {"changed": False, "failed": True, "msg": "the destination directory must be specified unless clone=no"}
    if dest:
        dest = os.path.abspath(dest)
    tool = _Git(git, repo, dest or "", remote)
    result["before"] = None
    cloning_remote = repo
    if (dest and not os.path.exists(os.path.join(dest, ".git", "config"))) or (not dest and not params["clone"]):
        if ctx.check_mode or not params["clone"]:
            result.update(changed=True, after=tool.remote_head(version, cloning_remote, cloning=True))
            if ctx.diff:
                result["diff"] = tool.diff(None, result["after"])
            return result
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        # clone asks whether version is a branch or a tag first (for --depth/--branch): a repository
        # that is not there fails on that ls-remote
        if not tool.is_remote_branch(repo, version, dest):
            tool.is_remote_tag(repo, version, dest)
        command = [git, "clone", "--origin", remote, repo, dest]
        tool.run(command, cwd=os.path.dirname(dest), check=True)
        local_mods = remote_url_changed = False
    elif not params["update"]:
        result["before"] = tool.version()
        result["after"] = result["before"]
        return result
    else:
        local_mods = any(not line.startswith("??") for line in
                         tool.run(f"{git} status --porcelain", cwd=dest)[1].splitlines())
        result["before"] = tool.version()
        if local_mods:
            if not params["force"]:
                raise _Fail({**result, "failed": True,
                             "msg": f"Local modifications exist in the destination: {dest} (force=no)."})
            if not ctx.check_mode:
                tool.run(f"{git} reset --hard HEAD", cwd=dest, check=True)
                result.update(changed=True, msg=f"Local modifications exist in the destination: {dest}")
        if ctx.check_mode:
            current = tool.remote_url()
            remote_url_changed = bool(current and current != repo and _unfrack(current) != _unfrack(repo))
        else:
            remote_url_changed = tool.set_remote_url()
        result["remote_url_changed"] = remote_url_changed
        if ctx.check_mode:
            head = tool.remote_head(version, remote, cloning=False)
            result.update(changed=result["before"] != head or remote_url_changed, after=head)
            if ctx.diff:
                diff = tool.diff(result["before"], result["after"])
                if diff:
                    result["diff"] = diff
            return result
        tool.fetch(force=params["force"])
        result["after"] = tool.version()
    tool.switch_version(version)
    if params["recursive"] and os.path.exists(os.path.join(dest, ".gitmodules")):
        raise ModuleError("playbook-ls's engine does not update git submodules; "
                          "run with --engine ansible to use ansible-playbook")
    result["after"] = tool.version()
    if result["before"] != result["after"] or local_mods or remote_url_changed:
        result["changed"] = True
        if ctx.diff:
            diff = tool.diff(result["before"], result["after"])
            if diff:
                result["diff"] = diff
    return result
