"""What a field mapping reads of a record, and what it leaves unread.

Every value of a raw record must end up in a mapped field, an attribute, or a warning. The
mapping's paths, laid over the shape of a record, make a tree of what is read; a value no
path reaches is left over, and the mapper keeps it as an attribute of the claim (or of the
evidence item it lies in). Nested objects nobody reads stay whole, as JSON.

    tree = ReadTree.of(mapping)
    tree.claim_leftovers(record, item)      # (name, value) pairs: the claim's unread values
    tree.item_leftovers(group_index, item)  # those of one evidence item
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from workbench.importers.mapping import FieldMapping, Value
from workbench.importers.paths import Path

EACH = object()
"""The child for every element of a list (`[]`, `[]?`, `[#]`)."""


@dataclass(eq=False)
class Node:
    """One place in a record's shape: read whole, or read in parts (its children)."""

    children: dict = field(default_factory=dict)
    whole: bool = False
    own: bool = False
    """Its values belong to something read on its own (an exploded claim, an evidence item)."""
    unless: tuple[str, ...] = ()
    """Sibling fields read instead of this one when they hold a value (id = ["a", "b"])."""

    def child(self, key: Any) -> Node:
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = Node()
        return node


@dataclass(frozen=True)
class _Scope:
    """Where a path is read from: a node, the nodes of its parents (innermost first), the root."""

    node: Node
    parents: tuple[Node, ...]
    root: Node

    def reach(self, path: Path) -> _Scope | None:
        """The node a path ends at (None for a position, which reads no value)."""
        if path.position:
            return None
        if path.up == -1:
            node, chain = self.root, ()
        elif path.up == 0:
            node, chain = self.node, self.parents
        elif path.up - 1 < len(self.parents):
            node, chain = self.parents[path.up - 1], self.parents[path.up :]
        else:
            return None
        holder = node
        for step in path.steps:
            if step.kind == "key":
                node = node.child(step.key)
            elif step.kind == "index":
                node = node.child(("index", step.key))
            else:  # each element (or the element at the item's own position)
                chain = (holder,) + chain
                node = holder = node.child(EACH)
        return _Scope(node, chain, self.root)

    def read(self, value: Value) -> None:
        earlier: list[str] = []
        for path in value.paths:
            end = self.reach(path)
            if end is None:
                continue
            end.node.whole = True
            if path.keys is not None and len(path.keys) == 1 and path.up == value.paths[0].up:
                # The first of several fields that holds a value is read; the others are not.
                end.node.unless = tuple(dict.fromkeys((*end.node.unless, *earlier)))
                earlier.append(path.keys[0])


@dataclass
class ReadTree:
    """What one mapping reads, as a tree over the record's shape."""

    root: Node
    claim: Node | None
    """The node of an exploded claim's element (None: the record is the claim)."""
    items: list[Node | None]
    """Per evidence group, the node of its items (None: the claim is the one item)."""

    @classmethod
    def of(cls, mapping: FieldMapping) -> ReadTree:
        root = Node()
        claim = _Scope(root, (), root)
        if mapping.explode is not None:
            claim = claim.reach(mapping.explode)
            claim.node.own = True
        for value in (*mapping.fields.values(), *mapping.attributes.values()):
            claim.read(value)
        items: list[Node | None] = []
        for group in mapping.evidence:
            scope = claim.reach(group.each) if group.each is not None else None
            if scope is not None:
                scope.node.own = True
            for value in (*group.parts.values(), *group.attributes.values()):
                (scope or claim).read(value)
            items.append(scope.node if scope is not None else None)
        return cls(root, claim.node if mapping.explode is not None else None, items)

    def claim_leftovers(self, record: Any, item: Any = None) -> Iterator[tuple[str, Any]]:
        """The record's unread values, then (exploded) those of the claim's own element."""
        yield from leftovers(record, self.root)
        if self.claim is not None:
            yield from leftovers(item, self.claim)

    def item_leftovers(self, group: int, item: Any) -> Iterator[tuple[str, Any]]:
        """One evidence item's unread values (none when the claim is the item)."""
        node = self.items[group] if group < len(self.items) else None
        return leftovers(item, node) if node is not None else iter(())


def leftovers(value: Any, node: Node, name: str = "") -> Iterator[tuple[str, Any]]:
    """(where, value) of everything under `node` that no path reads; what belongs to
    something read on its own is left to it."""
    if node.whole:
        return
    keys = any(isinstance(key, str) for key in node.children)
    if isinstance(value, dict) and (keys or not name):
        for key, item in value.items():
            child = node.children.get(key)
            if child is not None and any(value.get(other) is not None for other in child.unless):
                child = None  # an earlier field of the same mapping held the value
            yield from _unread(item, child, f"{name}.{key}" if name else str(key))
    elif isinstance(value, list) and node.children and not keys:
        each = node.children.get(EACH)
        for position, item in enumerate(value):
            child = (
                each or node.children.get(("index", position)) or node.children.get(("index", position - len(value)))
            )
            yield from _unread(item, child, f"{name}[{position}]")
    elif node.children and name and not _items_of_their_own(node):
        yield name, value  # not the shape the mapping looked into: kept whole


def _items_of_their_own(node: Node) -> bool:
    """A list whose elements are read on their own (evidence items): a value there that is
    not a list is one item too, or kept whole by the mapper (evidence_shapes.py)."""
    each = node.children.get(EACH)
    return len(node.children) == 1 and each is not None and each.own


def _unread(value: Any, node: Node | None, name: str) -> Iterator[tuple[str, Any]]:
    if node is None:
        yield name, value
    elif not node.own:
        yield from leftovers(value, node, name)
