"""``typing.NamedTuple``'s class syntax for the modules a listing imports, without typing.

Importing typing, and typing.NamedTuple's check of each field's annotation, were a sixteenth
of a cold listing of a small playbook: with ``from __future__ import annotations`` every
annotation is a string, which the check compiles, and a process's first ``compile()`` sets up
the compiler's syntax-tree types. Type checkers see typing.NamedTuple itself; at run time
:class:`NamedTuple` builds the same class, a ``collections.namedtuple`` with the annotations,
defaults and methods written in the class body, as typing's ``NamedTupleMeta`` does, without
checking the annotations. The modules a listing imports therefore write::

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import Any

(``typing.TYPE_CHECKING`` without importing typing; type checkers read it as theirs.)
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    _PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
                             "_make", "_replace", "_asdict", "_source"})
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _NamedTupleMeta(type):
        def __new__(mcls, typename: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
            if not bases:  # NamedTuple itself
                return super().__new__(mcls, typename, bases, namespace)
            if bases != (NamedTuple,):
                raise TypeError("can only inherit from a NamedTuple type")
            annotations: dict[str, object] = namespace.get("__annotations__", {})  # type: ignore[assignment]
            default_names: list[str] = []
            for field in annotations:
                if field in namespace:
                    default_names.append(field)
                elif default_names:
                    raise TypeError(f"Non-default namedtuple field {field} cannot follow default field"
                                    f"{'s' if len(default_names) > 1 else ''} {', '.join(default_names)}")
            record = namedtuple(typename, list(annotations), defaults=[namespace[name] for name in default_names],
                                module=namespace["__module__"])
            record.__annotations__ = record.__new__.__annotations__ = dict(annotations)
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in record._fields:
                    setattr(record, key, value)
            return record

    class NamedTuple(metaclass=_NamedTupleMeta):
        """Subclass it as typing.NamedTuple: ``class Span(NamedTuple): file: str ...``."""
