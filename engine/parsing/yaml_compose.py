"""YAML text to positioned Python values, as ansible-core would read it.

ruamel.yaml's C-backed composer builds nodes with start/end marks; :class:`_Constructor` turns
them into :class:`YMap` / :class:`YSeq` values that remember where every key and value sits, with
scalars resolved the way PyYAML's SafeLoader (ansible's parser, YAML 1.1) resolves them. Imported
only when a text really has to be parsed (see :mod:`engine.parsing.source`).
"""

from __future__ import annotations

import io
from _thread import allocate_lock

from engine.lazy_regex import LazyRegex
from engine.parsing.loaded import Loaded, YamlProblem
from engine.parsing.ruamel_package import error as _ruamel_error
from engine.parsing.ruamel_package import nodes as _ruamel_nodes
from engine.parsing.yaml_scalars import COLLECTION_TAGS, PLAIN, STR, float_value, int_value, plain_value
from engine.span import Span, YMap, YSeq
from engine.values import TIMESTAMP, UnsafeText, VaultText, YamlSet, YamlTimestamp, timestamp_moment

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any


MarkedYAMLError, YAMLError = _ruamel_error.MarkedYAMLError, _ruamel_error.YAMLError

try:  # pragma: no cover - exercised implicitly
    import _ruamel_yaml
    from _ruamel_yaml import CParser as _Parser

    FAST_PARSER = True
except ImportError:  # pragma: no cover - pure-Python fallback
    from ruamel.yaml.composer import Composer as _Composer
    from ruamel.yaml.parser import Parser as _PyParser
    from ruamel.yaml.reader import Reader as _Reader
    from ruamel.yaml.scanner import Scanner as _Scanner

    FAST_PARSER = False


ScalarNode, SequenceNode, MappingNode = _ruamel_nodes.ScalarNode, _ruamel_nodes.SequenceNode, _ruamel_nodes.MappingNode
Node = _ruamel_nodes.Node

if FAST_PARSER:
    # The C composer looks these names up in its module each time it makes a node. ruamel's own
    # __init__ makes a Tag object per node, a third of the composing time; these keep the tag
    # string itself in ``ctag`` (ruamel's ``.tag`` property gives it back unchanged). They are
    # put in place only while this module composes (ruamel's resolvers recognise node kinds by
    # identity, so its own C loader needs its classes back).

    class _FastScalarNode(ScalarNode):
        __slots__ = ()

        def __init__(self, tag: str, value: Any, start_mark: Any = None, end_mark: Any = None,
                     style: Any = None) -> None:
            self.ctag, self.value, self.start_mark, self.end_mark, self.style = tag, value, start_mark, end_mark, style
            self.comment = self.anchor = None

    class _FastSequenceNode(SequenceNode):
        __slots__ = ()

        def __init__(self, tag: str, value: Any, start_mark: Any = None, end_mark: Any = None,
                     flow_style: Any = None) -> None:
            self.ctag, self.value, self.start_mark, self.end_mark = tag, value, start_mark, end_mark
            self.flow_style = self.comment = self.anchor = None

    class _FastMappingNode(MappingNode):
        __slots__ = ()

        def __init__(self, tag: str, value: Any, start_mark: Any = None, end_mark: Any = None,
                     flow_style: Any = None) -> None:
            self.ctag, self.value, self.start_mark, self.end_mark = tag, value, start_mark, end_mark
            self.flow_style = self.comment = self.anchor = self.merge = None

    _FAST_NODES = (_FastScalarNode, _FastSequenceNode, _FastMappingNode)
    _COMPOSING = allocate_lock()  # threading.Lock, without importing threading


def _tag(node: Any) -> str:
    ctag = node.ctag  # reading .tag would build a new string for every scalar
    if type(ctag) is str:
        return ctag
    return ctag.suffix if ctag.handle is None else str(ctag)  # type: ignore[no-any-return]


class _ResolverMixin:
    """Tags every implicit plain scalar as ``!plain``: we resolve those ourselves, lazily."""

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        # By the kind's name, not its class: PyYAML's composer (see _compose_as_ansible) asks too.
        if kind.id == "scalar":
            return PLAIN if implicit[0] else STR
        if kind.id == "sequence":
            return "tag:yaml.org,2002:seq"
        return "tag:yaml.org,2002:map"


if FAST_PARSER:

    class _Composer(_ResolverMixin, _Parser):  # type: ignore[misc]
        def __init__(self, stream: io.StringIO) -> None:
            _Parser.__init__(self, stream)
            self._parser = self._composer = self

    def _compose(text: str) -> Node | None:
        with _COMPOSING:
            saved = _ruamel_yaml.ScalarNode, _ruamel_yaml.SequenceNode, _ruamel_yaml.MappingNode
            _ruamel_yaml.ScalarNode, _ruamel_yaml.SequenceNode, _ruamel_yaml.MappingNode = _FAST_NODES
            try:
                return _Composer(io.StringIO(text)).get_single_node()
            finally:
                _ruamel_yaml.ScalarNode, _ruamel_yaml.SequenceNode, _ruamel_yaml.MappingNode = saved

else:  # pragma: no cover

    class _Composer(_ResolverMixin, _Reader, _Scanner, _PyParser, _Composer):  # type: ignore[no-redef,misc]
        def __init__(self, stream: io.StringIO) -> None:
            _Reader.__init__(self, stream, loader=self)
            _Scanner.__init__(self, loader=self)
            _PyParser.__init__(self, loader=self)
            _Composer.__init__(self, loader=self)

        @property
        def resolver(self) -> _Composer:
            return self

    def _compose(text: str) -> Node | None:
        return _Composer(io.StringIO(text)).get_single_node()


_PYYAML: list[ModuleType | None] = []


def _pyyaml() -> ModuleType | None:
    """PyYAML, imported the first time ruamel refuses a text (its import costs more than most parses)."""
    if not _PYYAML:
        try:
            import yaml
        except ImportError:  # pragma: no cover - PyYAML is a dependency; without it the C composer decides alone
            yaml = None  # type: ignore[assignment]
        _PYYAML.append(yaml)
    return _PYYAML[0]


def _compose_as_ansible(text: str) -> Node | None:
    """Compose with PyYAML, the parser ansible-core uses (its C loader when present, as ansible).

    Only asked when ruamel's C composer refuses a text: the libyaml bundled with ruamel.yaml.clib
    (0.1.7) refuses plain scalars that later libyaml releases, PyYAML's wheels and so ansible
    accept, such as ``[role::web]`` or ``[a?b]`` in flow collections. PyYAML's nodes are copied into
    ruamel's, which is what the constructor knows, sharing the copy of a node that aliases share.
    """
    pyyaml = _pyyaml()
    assert pyyaml is not None
    base = getattr(pyyaml, "CSafeLoader", pyyaml.SafeLoader)
    loader = type("_AnsibleComposer", (_ResolverMixin, base), {})(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    if root is None:
        return None
    kinds = {"scalar": ScalarNode, "sequence": SequenceNode, "mapping": MappingNode}
    copies: dict[int, Node] = {}

    def copy(node: Any) -> Node:
        known = copies.get(id(node))
        if known is not None:
            return known
        kind = kinds[node.id]
        if node.id == "scalar":
            result = kind(node.tag, node.value, node.start_mark, node.end_mark, node.style)
            copies[id(node)] = result
            return result
        result = kind(node.tag, [], node.start_mark, node.end_mark)
        copies[id(node)] = result
        if node.id == "sequence":
            result.value.extend(copy(item) for item in node.value)
        else:
            result.value.extend((copy(key), copy(value)) for key, value in node.value)
        return result

    return copy(root)


MAX_EXPANDED_NODES = 2_000_000  # values, with aliases expanded: far beyond any real playbook


class _AliasBomb(Exception):
    """Aliases expand to more than MAX_EXPANDED_NODES values."""


class _BadScalar(Exception):
    """A scalar its tag (or its look) cannot be converted from: ``!!int foo``, a 5,000-digit integer."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.span = span


class _Constructor:
    def __init__(self, file: str) -> None:
        self.file = file
        self.memo: dict[int, Any] = {}
        self.flattened: dict[int, list[tuple[Node, Node]]] = {}  # mapping node -> its pairs, merges expanded
        self.sizes: dict[int, int] = {}  # node -> how many nodes it stands for, aliases expanded
        self.expanded = 0
        self.repeated = False  # a mapping gave a key twice: duplicates() has something to find

    def span(self, node: Node) -> Span:
        start, end = node.start_mark, node.end_mark
        return _new_span(Span, (self.file, start.line, start.column, end.line, end.column))

    def build(self, node: Node) -> Any:
        if node.ctag is PLAIN:  # most nodes: a plain scalar, never memoised (a value of its own)
            self.expanded += 1
            try:
                return plain_value(node.value)
            except ValueError as exc:  # an integer of more digits than Python converts
                raise _BadScalar(str(exc), self.span(node)) from exc
        known = self.memo.get(id(node))
        if known is not None:
            # An alias shares the value, but whoever walks it walks the expansion: count that,
            # so that an alias bomb is refused here instead of hanging whoever formats it.
            self.expanded += self.sizes.get(id(node), 1)
            if self.expanded > MAX_EXPANDED_NODES:
                raise _AliasBomb
            return known
        if isinstance(node, ScalarNode):
            self.expanded += 1
            return self.scalar(node)
        before = self.expanded
        if isinstance(node, SequenceNode):
            seq = YSeq(self.span(node))
            self.memo[id(node)] = seq
            build, span, item_spans = self.build, self.span, seq.item_spans
            for item in node.value:
                seq.append(build(item))
                item_spans.append(span(item))
            result: Any = seq
        else:
            result = self.mapping(node)
        tag = _tag(node)
        if tag == "!unsafe":  # ansible distrusts every string built inside
            _distrust(result)
        elif tag in COLLECTION_TAGS:
            result = self.memo[id(node)] = self._tagged_collection(tag, result, node)
        self.expanded += 1
        self.sizes[id(node)] = self.expanded - before
        return result

    def _tagged_collection(self, tag: str, built: YMap | YSeq, node: Node) -> Any:
        """What PyYAML's SafeConstructor makes of ``!!set`` (a set: :class:`YamlSet`), ``!!omap`` and
        ``!!pairs`` (a list of ``(key, value)`` tuples, each item a mapping of one pair)."""
        if tag.endswith(":set"):
            if not isinstance(built, YMap):
                raise _BadScalar(f"expected a mapping node, but found {node.id}", self.span(node))
            return YamlSet(list(built))
        if not isinstance(built, YSeq):
            raise _BadScalar(f"expected a sequence, but found {node.id}", self.span(node))
        pairs = YSeq(built.span)
        pairs.item_spans = built.item_spans
        for item in built:
            if not isinstance(item, YMap) or len(item) != 1:
                raise _BadScalar("expected a mapping of length 1", self.span(node))
            pairs.append(next(iter(item.items())))
        return pairs

    def scalar(self, node: ScalarNode) -> Any:
        """The scalar's value; one PyYAML (ansible's parser) cannot convert fails as there."""
        try:
            return self._scalar(node)
        except (ValueError, KeyError, AttributeError) as exc:
            raise _BadScalar(str(exc), self.span(node)) from exc

    def _scalar(self, node: ScalarNode) -> Any:
        tag = _tag(node)
        value = node.value
        if tag == PLAIN:
            return plain_value(value)
        if tag == STR or tag == "!":
            return value
        if tag == "!vault":
            return VaultText(value)
        if tag == "!unsafe":
            # ansible resolves the text as if it were plain (``!unsafe "42"`` is 42) and distrusts
            # only what is then a string
            resolved = plain_value(value)
            return UnsafeText(resolved) if type(resolved) is str else resolved
        if tag.startswith("tag:yaml.org,2002:"):
            kind = tag.rsplit(":", 1)[1]
            if kind == "int":
                return int_value(value)
            if kind == "float":
                return float_value(value)
            if kind == "bool":
                return {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}[value.lower()]
            if kind == "null":
                return None
            if kind == "binary":  # bytes, as PyYAML's construct_yaml_binary decodes them
                import base64
                import binascii

                try:
                    return base64.decodebytes(value.encode("ascii"))
                except (UnicodeEncodeError, binascii.Error) as exc:
                    raise ValueError(f"failed to decode base64 data: {exc}") from None
            if kind == "timestamp":
                if not TIMESTAMP.match(value):
                    raise AttributeError("'NoneType' object has no attribute 'groupdict'")
                timestamp_moment(value)
                return YamlTimestamp(value)
        return value

    def mapping(self, node: MappingNode) -> YMap:
        result = YMap(self.span(node))
        self.memo[id(node)] = result
        build, span, key_spans, value_spans = self.build, self.span, result.key_spans, result.value_spans
        pairs = self._flattened(node)
        for key_node, value_node in pairs:
            plain = key_node.ctag is PLAIN  # a PyYAML-composed node's tag is no str: _tag reads it
            key = build(key_node)
            if not plain and isinstance(key, list | dict):  # PyYAML refuses it too (its str() could grow exponentially)
                raise _BadScalar("While constructing a mapping found unhashable key.", span(key_node))
            value = result[key] = build(value_node)
            if key not in key_spans:  # a key given again keeps its first place, as a dict keeps its first key
                key_spans[key] = span(key_node)
            # a collection's span is its node's (an alias's node is the anchored one): made once
            value_spans[key] = value.span if type(value) is YMap or type(value) is YSeq else span(value_node)
        self.repeated = self.repeated or len(result) < len(pairs)
        return result

    def duplicates(self, root: Node) -> tuple[YamlProblem, ...]:
        """Each key a mapping gives again, at the later one, as ansible's constructor warns of them
        ("Found duplicate mapping key"): merged pairs count (its check follows ``flatten_mapping``),
        mappings in the order PyYAML finishes them, level by level (its deferred generators)."""
        found: list[YamlProblem] = []
        queue, seen = [root], {id(root)}
        for node in queue:
            if isinstance(node, MappingNode):
                keys: set[Any] = set()
                for key_node, value_node in self._flattened(node):
                    key = self.build(key_node)
                    try:
                        if key in keys:
                            found.append(YamlProblem(f"Found duplicate mapping key {key!r}.", self.span(key_node)))
                        keys.add(key)
                    except TypeError:  # an unhashable key was refused while building
                        pass
                    if id(value_node) not in seen and not isinstance(value_node, ScalarNode):
                        seen.add(id(value_node))
                        queue.append(value_node)
            elif isinstance(node, SequenceNode):
                for item in node.value:
                    if id(item) not in seen and not isinstance(item, ScalarNode):
                        seen.add(id(item))
                        queue.append(item)
        return tuple(found)

    def _flattened(self, node: MappingNode) -> list[tuple[Node, Node]]:
        """The mapping's pairs with its merge keys (``<<``) replaced by the merged pairs, as PyYAML's
        ``flatten_mapping`` (6.0.2+, ansible's parser) makes them: every merged pair first, in the
        order the merged mappings come (each flattened the same way), then the mapping's own, the
        last of a key winning. A merged pair is skipped only when its key is the very string of one
        merged before: the same key node (an alias merged twice) or a one-character key, which
        Python shares; ``<<: [*a, *b]`` so takes ``b``'s ``port`` over ``a``'s, but ``a``'s ``x``."""
        known = self.flattened.get(id(node))
        if known is not None:
            return known
        merged: list[tuple[Node, Node]] = []
        own: list[tuple[Node, Node]] = []
        seen: set[object] = set()
        for pair in node.value:
            key_node, value_node = pair
            if not (key_node.value == "<<" and isinstance(key_node, ScalarNode)
                    and (key_node.ctag is PLAIN or _tag(key_node) == PLAIN)):
                own.append(pair)
                continue
            sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            for source in sources:
                if not isinstance(source, MappingNode):
                    continue
                for merged_pair in self._flattened(source):
                    identity = _key_identity(merged_pair[0])
                    if identity not in seen:
                        seen.add(identity)
                        merged.append(merged_pair)
        result = self.flattened[id(node)] = merged + own if merged else own
        return result


def _key_identity(key_node: Node) -> object:
    """What PyYAML compares to skip a merged key: its string object. CPython shares the strings of
    one character below U+0100 and the empty one; any other is its node's own."""
    value = key_node.value
    if isinstance(key_node, ScalarNode) and len(value) <= 1 and (not value or ord(value) < 256):
        return ("shared", value)
    return id(key_node)


def _distrust(value: YMap | YSeq) -> None:
    """The plain strings of a collection tagged ``!unsafe``, at any depth, made :class:`UnsafeText`."""
    items = value.items() if isinstance(value, YMap) else enumerate(value)
    for key, item in list(items):
        if type(item) is str:
            value[key] = UnsafeText(item)
        elif isinstance(item, YMap | YSeq):
            _distrust(item)


_new_span = tuple.__new__  # Span's fields in order, without NamedTuple's generated __new__

MAX_NESTING = 1000  # deeper than any real playbook; PyYAML, which ansible uses, gives up sooner


_BRACKET = LazyRegex(r"[\[\]{}]")
_BLOCK_PREFIX = LazyRegex(r"[ \t]*(?:[-?:](?:[ \t]+|$))*")  # used only for a line longer than MAX_NESTING


def _too_deep(text: str) -> Span | None:
    """Where nesting passes MAX_NESTING, if it does. The C composer recurses once per level and
    would overflow the stack (a crash, not an exception) on a few ten thousand levels, which
    an editor buffer can hold.

    Every way YAML nests is bounded by one of two measures. Flow collections by the open ``[``
    and ``{``. Block collections (indentation, and compact ``- - x``, ``? ? x``, ``- ? : x`` on one
    line) by the column where a line's content starts, since each level's content starts further
    right: only a line longer than MAX_NESTING can pass the limit, so this is cheap."""
    if text.count("[") + text.count("{") > MAX_NESTING:
        depth = 0
        for bracket in _BRACKET.finditer(text):  # not every character: a JSON export is megabytes
            if bracket.group() in "[{":
                depth += 1
                if depth > MAX_NESTING:
                    offset = bracket.start()
                    line = text.count("\n", 0, offset)
                    return Span("", line, offset - (text.rfind("\n", 0, offset) + 1), line, 0)
            elif depth:
                depth -= 1
    if len(text) > MAX_NESTING:
        for number, line in enumerate(text.splitlines()):
            if len(line) > MAX_NESTING:
                column = _BLOCK_PREFIX.match(line).end()
                if column > MAX_NESTING:
                    return Span("", number, MAX_NESTING, number, 0)
    return None


_JSON_START = LazyRegex(r"[ \t\n\r]*[\[{]")


def looks_like_json(text: str) -> bool:
    """Whether a text starts as a JSON object or array does (worth reading as JSON first)."""
    return _JSON_START.match(text) is not None


def _syntax_problem(exc: Any, file: str) -> YamlProblem:
    """A YAML library's positioned error (ruamel's or PyYAML's, which have the same shape)."""
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line, mark.column) if mark is not None else (0, 0)
    message = " ".join(filter(None, [exc.context, exc.problem])) or "invalid YAML"
    return YamlProblem(message, Span(file, line, col, line, col))


def parse_yaml(text: str, file: str) -> Loaded:
    """Parse YAML text; a syntax error comes back as ``Loaded.error`` with its position."""
    if looks_like_json(text):  # ansible's loader tries JSON first, and JSON's values win
        from engine.parsing.yaml_json import parse_json  # only then: a listing need not import json

        data = parse_json(text, file)
        if data is not None:
            return Loaded(file, data=data)
    deep = _too_deep(text)
    if deep is not None:
        return Loaded(file, error=YamlProblem(f"YAML nested more than {MAX_NESTING} levels deep",
                                              deep._replace(file=file, end_line=deep.line, end_col=deep.col)))
    try:
        node = _compose(text)
    except MarkedYAMLError as exc:
        pyyaml = _pyyaml()
        if pyyaml is None:
            return Loaded(file, error=_syntax_problem(exc, file))
        try:  # ansible's parser has the last word on what is valid YAML
            node = _compose_as_ansible(text)
        except pyyaml.MarkedYAMLError as pyyaml_exc:
            return Loaded(file, error=_syntax_problem(pyyaml_exc, file))
        except (pyyaml.YAMLError, ValueError, RecursionError) as pyyaml_exc:
            return Loaded(file, error=YamlProblem(f"invalid YAML: {pyyaml_exc}", Span(file, 0, 0, 0, 0)))
    except (YAMLError, ValueError, RecursionError) as exc:
        return Loaded(file, error=YamlProblem(f"invalid YAML: {exc}", Span(file, 0, 0, 0, 0)))
    if node is None:
        return Loaded(file, data=None)
    try:
        constructor = _Constructor(file)
        data = constructor.build(node)
        return Loaded(file, data=data, duplicates=constructor.duplicates(node) if constructor.repeated else ())
    except RecursionError:
        return Loaded(file, error=YamlProblem("YAML nested too deeply", Span(file, 0, 0, 0, 0)))
    except _BadScalar as bad:
        return Loaded(file, error=YamlProblem(f"YAML parsing failed: {bad}", bad.span))
    except _AliasBomb:
        return Loaded(file, error=YamlProblem(f"YAML aliases expand to more than {MAX_EXPANDED_NODES:,} values",
                                              Span(file, 0, 0, 0, 0)))
