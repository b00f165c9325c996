#!/usr/bin/env python3
"""Checks the rules of docs/house.md against the code's own imports.

    python3 scripts/house.py [SRC] [--house FILE] [--arrows]

SRC defaults to `src`, FILE to `docs/house.md` beside SRC. Every `*.rs` file
under SRC is read with its comments and string literals blanked out. An
arrow goes from a file to the file that defines the module a path names, for

- `use crate::…` declarations (groups, `self` and aliases included), and
  `use kubectl_etcd::…` in `main.rs`, the binary;
- `use super::…` and `use self::…`, resolved from the module the line is in
  (an inline `mod x { … }` counts);
- the same paths written in the code itself (`crate::plan::defrag::predict(…)`).

A path goes to the deepest module on it that is a file of its own: a type of
`crate::reach` is an arrow to `reach/mod.rs`, one of `crate::reach::tls` to
`reach/tls.rs`. A name the crate root re-exports (`crate::Result`) goes to
the module it comes from. A bare child path in a parent (`use wire::x` in
`phase/mod.rs`) is not followed: a parent naming its children is the module
tree itself. Test code (`#[cfg(test)]` modules and items) is left out of the
graph: a test may build its input with whatever module it likes.

The checks; each violation is one line on stderr, and the exit status is 1:

- no import cycle between files, nor between top-level modules (a module
  cycle that closes only through an arrow of LAYER_EXCEPTIONS is named in
  the summary instead: it goes when that arrow is decided);
- no file in `commands/` imports another command (COMMANDS_SHARED, the
  dispatcher and what commands share, may be imported by them);
- no function over MAX_FN_LINES lines of code outside tests, but those of
  LONG_FUNCTIONS, none longer than it says;
- no file over MAX_LINES lines of code: lines that are neither blank nor only
  comment, outside `#[cfg(test)] mod tests` (inline, or a `tests.rs` file);
  other test-only modules, such as the scripted fake, count;
- `cli` imported only by CLI_IMPORTERS and the files under CLI_IMPORTER_DIRS;
- a kind of cluster (`source/cozystack`, the EtcdCluster types) named outside
  `source/` only by KIND_NAMERS;
- the layer table of docs/house.md (`| module | owns | never imports |`),
  read from the document itself: no module imports one its row says it never
  imports; every module has a row and every row a module; and no module
  imports one from a row above its own ("a module imports only from the
  lines below it"), unless the arrow is in LAYER_EXCEPTIONS.

An entry of CLI_IMPORTERS or LAYER_EXCEPTIONS that is no longer needed is a
violation too, so both lists only shrink. On success one summary line is
printed; `--arrows` first prints every arrow between top-level modules, with
the files and the names behind it.
"""

import argparse
import os
import re
import sys
from collections import defaultdict

MAX_LINES = 600

# The files of `commands/` that are no command: the dispatcher, and what
# the commands share (`change.rs`: the one way to change a cluster).
COMMANDS_SHARED = {"commands/mod.rs", "commands/change.rs"}

# No function over MAX_FN_LINES lines of code outside tests. None is over it
# today; an exception would be listed here with its length (it may shrink,
# never grow, and its entry goes once it is back under the limit).
MAX_FN_LINES = 100
LONG_FUNCTIONS = {}

# Who may import `cli`: the binary's edge and the settings stage (every
# file of `settings/`, the stage that turns clap's arguments into settled
# values). Commands take settled values and never import it.
CLI_IMPORTERS = {"main.rs"}
# A kind of cluster is seen above `source` only through `source::Source`:
# outside `source/`, only these name a kind's module or its cluster types
# (the commands about the operator's own objects, and the controller of
# its EtcdDefrag). Like CLI_IMPORTERS, the list only shrinks.
KIND_NAMERS = {"commands/traffic.rs", "commands/via_operator.rs", "controller/reconcile.rs"}
KIND_TYPES = {"EtcdCluster", "EtcdMember", "EtcdClusterSpec", "EtcdMemberSpec", "EtcdClusterStatus"}
CLI_IMPORTER_DIRS = ("settings/",)

# Arrows that go up the layer table and are not decided yet: either the
# code changes or docs/house.md restates the order; then the entry goes.
LAYER_EXCEPTIONS = set()

# What the table's words mean where they name no module.
IO_MODULES = ("commands", "controller", "session", "exec", "output", "etcd", "k8s")
NEVER_WORDS = {
    "another command": (),  # checked by the commands rule
    "I/O": IO_MODULES,
    "any I/O": IO_MODULES,
}

ROOTS = ("main.rs", "lib.rs")
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
CFG_TEST = re.compile(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")


# ---------------------------------------------------------------------------
# Reading Rust


def blank(text):
    """The text with comments turned into spaces and the insides of string
    and char literals into `s` (whitespace kept): line numbers, braces and
    which lines hold code survive, and nothing in a comment or a string is
    taken for a path."""
    out = []
    i, n = 0, len(text)

    def fill(chunk, c):
        return "".join(ch if ch in " \t\n" else c for ch in chunk)

    def word_before(k):
        return k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_")

    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(fill(text[i:j], " "))
            i = j
        elif not word_before(i) and re.match(r'b?r#*"', text[i:i + 300]):
            m = re.match(r'b?r(#*)"', text[i:])
            close = '"' + m.group(1)
            j = text.find(close, i + m.end())
            j = n if j < 0 else j
            out.append(m.group(0) + fill(text[i + m.end():j], "s") + close)
            i = j + len(close)
        elif text[i] == '"' or (not word_before(i) and text.startswith('b"', i)):
            start = text.index('"', i) + 1
            j = start
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:start] + fill(text[start:j], "s") + '"')
            i = j + 1
        elif text[i] == "'":
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'\n])'", text[i:])
            if m:  # a char literal; otherwise a lifetime or a label
                out.append("'s'")
                i += m.end()
            else:
                out.append("'")
                i += 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def matching_brace(code, at):
    depth = 0
    for j in range(at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def module_of(rel):
    """The module a file defines: `plan/gate.rs` → ("plan", "gate")."""
    if rel in ROOTS:
        return ()
    parts = rel[:-3].split("/")
    return tuple(parts[:-1] if parts[-1] == "mod" else parts)


def top_of(rel):
    """The top-level module of a file (`main.rs` and `lib.rs` as they are)."""
    return rel if rel in ROOTS else module_of(rel)[0]


def is_tests_name(name):
    return name == "tests" or name.endswith("_tests")


class Source:
    """One file: its blanked code, inline modules and test regions."""

    def __init__(self, root, rel):
        self.rel = rel
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            self.code = blank(f.read())
        self.module = module_of(rel)
        self.inline = []  # (open brace, close brace, name)
        self.test_regions = []  # (start, end, name of the module or None)
        self.test_children = set()  # `#[cfg(test)] mod name;`
        for m in re.finditer(r"\bmod\s+(" + IDENT + r")\s*\{", self.code):
            brace = m.end() - 1
            self.inline.append((brace, matching_brace(self.code, brace), m.group(1)))
        for m in CFG_TEST.finditer(self.code):
            semi = self.code.find(";", m.end())
            brace = self.code.find("{", m.end())
            semi = len(self.code) if semi < 0 else semi
            header = self.code[m.end(): min(semi, brace if brace >= 0 else semi)]
            named = re.search(r"\bmod\s+(" + IDENT + r")\s*$", header)
            if brace < 0 or semi < brace:
                self.test_regions.append((m.start(), semi, named.group(1) if named else None))
                if named:
                    self.test_children.add(named.group(1))
            else:
                end = matching_brace(self.code, brace)
                self.test_regions.append((m.start(), end, named.group(1) if named else None))

    def module_at(self, pos):
        path = list(self.module)
        for start, end, name in sorted(self.inline):
            if start < pos < end:
                path.append(name)
        return tuple(path)

    def in_test(self, pos):
        return any(start <= pos <= end for start, end, _ in self.test_regions)

    def functions(self):
        """(name, lines of code, first line) of every `fn` with a body
        outside test code: lines of its body that are neither blank nor
        only comment, the signature's first line to the closing brace."""
        out = []
        for m in re.finditer(r"\bfn\s+(" + IDENT + r")", self.code):
            if self.in_test(m.start()):
                continue
            depth, k = 0, m.end()
            while k < len(self.code):
                c = self.code[k]
                if c in "([":
                    depth += 1
                elif c in ")]":
                    depth -= 1
                elif depth == 0 and c in ";{":
                    break
                k += 1
            if k >= len(self.code) or self.code[k] != "{":
                continue  # a declaration without a body
            end = matching_brace(self.code, k)
            first = self.code.count("\n", 0, m.start())
            text = self.code[self.code.rfind("\n", 0, m.start()) + 1:end + 1]
            out.append((m.group(1), sum(1 for line in text.split("\n") if line.strip()), first + 1))
        return out

    def lines_of_code(self):
        """Lines neither blank nor only comment, outside `#[cfg(test)] mod
        tests` (a block, or the declaration of a file; attributes included)."""
        skip = set()
        for start, end, name in self.test_regions:
            if name and is_tests_name(name):
                skip.update(range(self.code.count("\n", 0, start), self.code.count("\n", 0, end) + 1))
        return sum(1 for k, line in enumerate(self.code.split("\n")) if line.strip() and k not in skip)


def use_declarations(code):
    """(start, end, tree) of every `use …;` in blanked code."""
    for m in re.finditer(r"(?<![A-Za-z0-9_])use\s+", code):
        before = code[: m.start()].rstrip()
        if before and before[-1] not in ";{}]" and not re.search(r"\bpub(\s*\([^)]*\))?$", before):
            continue
        end = code.find(";", m.end())
        if end >= 0:
            yield m.start(), end, code[m.end():end]


def expand(tree):
    """A use tree as full paths, aliases dropped:
    `a::{self, b::C as D, e::*}` → [a], [a, b, C], [a, e]."""
    tree = re.sub(r"\s+as\s+" + IDENT, "", tree)
    tree = re.sub(r"\s+", "", tree)
    paths = []

    def walk(text, prefix):
        depth, item, items = 0, "", []
        for ch in text:
            depth += (ch == "{") - (ch == "}")
            if ch == "," and depth == 0:
                items.append(item)
                item = ""
            else:
                item += ch
        items.append(item)
        for item in filter(None, items):
            brace = item.find("{")
            if brace >= 0:
                head = [p for p in item[:brace].split("::") if p]
                walk(item[brace + 1: item.rfind("}")], prefix + head)
                continue
            parts = [p for p in item.split("::") if p and p != "*"]
            paths.append(prefix + ([] if parts == ["self"] else parts))

    walk(tree, [])
    return paths


# ---------------------------------------------------------------------------
# The graph


class House:
    def __init__(self, root):
        self.files = {}
        for dirpath, _, names in os.walk(root):
            for name in names:
                if name.endswith(".rs"):
                    rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                    self.files[rel] = Source(root, rel)
        self.by_module = {s.module: rel for rel, s in self.files.items() if rel != "main.rs"}
        self.test_files = self._test_files()
        self.reexports = self._root_reexports()
        self.arrows = defaultdict(set)  # (from file, to file) → names
        for rel, source in sorted(self.files.items()):
            if rel not in self.test_files:
                self._read_arrows(rel, source)

    def _test_files(self):
        """Files under a module declared `#[cfg(test)] mod name;`."""
        found = set()
        for source in self.files.values():
            for child in source.test_children:
                prefix = source.module + (child,)
                found.update(r for r, s in self.files.items()
                             if r not in ROOTS and s.module[: len(prefix)] == prefix)
        return found

    def _root_reexports(self):
        found = {}
        lib = self.files.get("lib.rs")
        for _, _, tree in use_declarations(lib.code if lib else ""):
            for path in expand(tree):
                if path and path[0] not in ("crate", "self", "super"):
                    found[path[-1]] = tuple(path)
        return found

    def resolve(self, path):
        """(file, the names past it) for an absolute module path."""
        path = tuple(path)
        if path and (path[0],) not in self.by_module and path[0] in self.reexports:
            path = self.reexports[path[0]] + path[1:]
        for k in range(len(path), -1, -1):
            if path[:k] in self.by_module:
                return self.by_module[path[:k]], path[k:]
        return None, path

    @staticmethod
    def absolute(rel, here, path):
        head, rest = path[0], list(path[1:])
        if rel == "main.rs":
            return rest if head == "kubectl_etcd" else None
        if head == "crate":
            return rest
        if head == "self":
            return list(here) + rest
        base = list(here)  # super, perhaps super::super::…
        while True:
            if not base:
                return None
            base.pop()
            if not (rest and rest[0] == "super"):
                return base + rest
            rest.pop(0)

    def _add(self, rel, here, path):
        absolute = self.absolute(rel, here, path)
        if absolute is None:
            return
        target, names = self.resolve(absolute)
        if target and target != rel:
            self.arrows[(rel, target)].add("::".join(names) or "(the module)")

    def _read_arrows(self, rel, source):
        heads = ("kubectl_etcd",) if rel == "main.rs" else ("crate", "self", "super")
        masked = list(source.code)
        for start, end, tree in use_declarations(source.code):
            if not source.in_test(start):
                for path in expand(tree):
                    if path and path[0] in heads:
                        self._add(rel, source.module_at(start), path)
            masked[start:end] = [c if c == "\n" else " " for c in masked[start:end]]
        inline = r"(?<![A-Za-z0-9_:])(?:%s)(?:\s*::\s*%s)+" % ("|".join(heads), IDENT)
        for m in re.finditer(inline, "".join(masked)):
            if not source.in_test(m.start()):
                path = [p.strip() for p in m.group(0).split("::")]
                self._add(rel, source.module_at(m.start()), path)

    def module_arrows(self):
        """(from module, to module) → [(from file, to file, names)]."""
        found = defaultdict(list)
        for (a, b), names in sorted(self.arrows.items()):
            ta, tb = top_of(a), top_of(b)
            if ta != tb and "lib.rs" not in (ta, tb):
                found[(ta, tb)].append((a, b, sorted(names)))
        return found


def cycles(nodes, edges):
    """The strongly connected components of more than one node (Tarjan)."""
    graph = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on.discard(component[-1])
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


# ---------------------------------------------------------------------------
# docs/house.md


def layer_table(path):
    """[(modules of the row, never-imports entries)] of the table whose header
    is `| module | owns | never imports |`, top row first."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    header = re.compile(r"^\|\s*module\s*\|\s*owns\s*\|\s*never imports\s*\|$", re.I)
    for k, line in enumerate(lines):
        if header.match(line.strip()):
            rows = []
            for row in lines[k + 2:]:
                row = row.strip()
                if not row.startswith("|"):
                    break
                cells = [c.strip() for c in row.strip("|").split("|")]
                if len(cells) != 3:
                    raise ValueError("a layer table row with %d cells, not 3: %s" % (len(cells), row))
                never = [e.strip() for e in cells[2].split(",") if e.strip()]
                rows.append((re.findall(r"`([^`]+)`", cells[0]), never))
            return rows
    raise ValueError("%s has no `| module | owns | never imports |` table" % path)


# ---------------------------------------------------------------------------
# The checks


def check(house, rows):
    problems = []
    arrows = house.arrows
    mod_arrows = house.module_arrows()
    modules = {top_of(rel) for rel in house.files} - {"lib.rs"}

    def where(behind):
        return "; ".join("%s → %s (%s)" % (a, b, ", ".join(names)) for a, b, names in behind)

    for component in cycles(house.files, arrows):
        problems.append("file import cycle among " + ", ".join(component))
    decided = [arrow for arrow in mod_arrows if arrow not in LAYER_EXCEPTIONS]
    for component in cycles(modules, decided):
        problems.append("module import cycle among " + ", ".join(component))

    def command(rel):
        """The command a file of `commands/` is (a command that outgrew its
        file is a folder: `commands/snapshot/`), or None."""
        if not rel.startswith("commands/") or rel in COMMANDS_SHARED:
            return None
        parts = rel.split("/")
        return parts[1] if len(parts) > 2 else parts[1][:-3]

    for (a, b), names in sorted(arrows.items()):
        if command(a) and command(b) and command(a) != command(b):
            problems.append("a command imports another: %s → %s (%s)" % (a, b, ", ".join(sorted(names))))

    for rel, source in sorted(house.files.items()):
        if rel in house.test_files and is_tests_name(rel.rsplit("/", 1)[-1][:-3]):
            continue
        count = source.lines_of_code()
        if count > MAX_LINES:
            problems.append("%s has %d lines of code, over %d" % (rel, count, MAX_LINES))

    long_now = {}
    for rel, source in sorted(house.files.items()):
        if rel in house.test_files:
            continue
        for name, count, line in source.functions():
            if count > MAX_FN_LINES:
                long_now["%s::%s" % (rel, name)] = count
    for function, count in sorted(long_now.items()):
        allowed = LONG_FUNCTIONS.get(function)
        if allowed is None:
            problems.append("%s has %d lines of code, over %d: split it" % (function, count, MAX_FN_LINES))
        elif count > allowed:
            problems.append("%s grew to %d lines of code (LONG_FUNCTIONS allows %d, and the limit is %d)" % (function, count, allowed, MAX_FN_LINES))
    for function in sorted(set(LONG_FUNCTIONS) - set(long_now)):
        problems.append("LONG_FUNCTIONS lists %s, which is no longer over %d lines: take it out" % (function, MAX_FN_LINES))
    house.long_functions = long_now

    # cli's own files (cli/agent.rs) use what cli/mod.rs defines: that is
    # cli, not an importer of it.
    importers = {a for (a, b) in arrows if top_of(b) == "cli" and top_of(a) != "cli"}
    for rel in sorted(importers - CLI_IMPORTERS):
        if not rel.startswith(CLI_IMPORTER_DIRS):
            problems.append("%s imports cli: only main.rs and settings/ may (commands take settled values)" % rel)
    for rel in sorted(CLI_IMPORTERS - importers):
        problems.append("CLI_IMPORTERS lists %s, which does not import cli: take it out" % rel)

    namers = set()
    for (a, b), names in sorted(arrows.items()):
        if a.startswith("source/"):
            continue
        kind_module = b.startswith("source/cozystack")
        kind_types = b == "k8s/crd.rs" and names & KIND_TYPES
        if kind_module or kind_types:
            namers.add(a)
            if a not in KIND_NAMERS:
                what = ", ".join(sorted(names & KIND_TYPES)) if kind_types else b
                problems.append("%s names a kind of cluster (%s): go through source::Source" % (a, what))
    for rel in sorted(KIND_NAMERS - namers):
        problems.append("KIND_NAMERS lists %s, which names no kind of cluster: take it out" % rel)

    row_of, never = {}, defaultdict(set)
    for number, (names, entries) in enumerate(rows):
        for name in names:
            row_of[name] = number
            for entry in entries:
                if entry.startswith("`") and entry.endswith("`"):
                    never[name].add(entry.strip("`"))
                elif entry in NEVER_WORDS:
                    never[name].update(NEVER_WORDS[entry])
                else:
                    problems.append("layer table: `%s` never imports %r, which is no module and no word this script knows" % (name, entry))
    for name in sorted(modules - set(row_of)):
        problems.append("layer table: module `%s` has no row" % name)
    for name in sorted(set(row_of) - modules):
        problems.append("layer table: row `%s` names no module of the code" % name)
    for name in sorted(set().union(*never.values()) - modules):
        problems.append("layer table: `%s` under never imports names no module of the code" % name)

    upward = set()
    for (ta, tb), behind in sorted(mod_arrows.items()):
        if tb in never[ta]:
            problems.append("layer table: `%s` never imports `%s`, yet %s" % (ta, tb, where(behind)))
        elif ta in row_of and tb in row_of and row_of[tb] < row_of[ta]:
            upward.add((ta, tb))
            if (ta, tb) not in LAYER_EXCEPTIONS:
                problems.append("layer order: `%s` imports `%s`, on a row above it: %s" % (ta, tb, where(behind)))
    for ta, tb in sorted(LAYER_EXCEPTIONS - upward):
        problems.append("LAYER_EXCEPTIONS lists %s → %s, which no longer goes up the table: take it out" % (ta, tb))
    return problems, importers, sorted(upward & LAYER_EXCEPTIONS), cycles(modules, mod_arrows)


def main():
    parser = argparse.ArgumentParser(description="Check the rules of docs/house.md against the code.")
    parser.add_argument("src", nargs="?", default="src")
    parser.add_argument("--house", help="the house document (default: docs/house.md beside SRC)")
    parser.add_argument("--arrows", action="store_true", help="print every arrow between top-level modules")
    args = parser.parse_args()
    if not os.path.isdir(args.src):
        parser.error("no directory %s" % args.src)
    doc = args.house or os.path.join(os.path.dirname(os.path.abspath(args.src)), "docs", "house.md")

    house = House(args.src)
    try:
        rows = layer_table(doc)
    except (OSError, ValueError) as e:
        print("house: %s" % e, file=sys.stderr)
        return 1
    problems, importers, excepted, through = check(house, rows)
    mod_arrows = house.module_arrows()

    if args.arrows:
        for (ta, tb), behind in sorted(mod_arrows.items()):
            print("%s → %s" % (ta, tb))
            for a, b, names in behind:
                print("    %s → %s: %s" % (a, b, ", ".join(names)))
    if problems:
        for p in problems:
            print("house: " + p, file=sys.stderr)
        print("house: %d violation(s) of docs/house.md" % len(problems), file=sys.stderr)
        return 1

    counted = [(s.lines_of_code(), rel) for rel, s in house.files.items()
               if not (rel in house.test_files and is_tests_name(rel.rsplit("/", 1)[-1][:-3]))]
    lines, longest = max(counted)
    print("house: ok: %d files (%d test-only), %d file arrows, %d module arrows, %d layer rows"
          % (len(house.files), len(house.test_files), len(house.arrows), len(mod_arrows), len(rows)))
    if through:
        print("house: no file import cycle; module cycles only through undecided arrows: %s"
              % "; ".join(", ".join(c) for c in through))
    else:
        print("house: no import cycle between files or between modules")
    print("house: no command imports another; longest file %s, %d of %d lines of code"
          % (longest, lines, MAX_LINES))
    long_functions = getattr(house, "long_functions", {})
    if long_functions:
        name, count = max(long_functions.items(), key=lambda kv: kv[1])
        print("house: %d function(s) over %d lines of code, none longer than LONG_FUNCTIONS allows; the longest %s, %d"
              % (len(long_functions), MAX_FN_LINES, name, count))
    else:
        print("house: no function over %d lines of code" % MAX_FN_LINES)
    print("house: cli imported by %d files, all of them main.rs or settings/; "
          "%d undecided arrow(s) up the layer table: %s"
          % (len(importers), len(excepted), ", ".join("%s→%s" % e for e in excepted) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
