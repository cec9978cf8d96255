#!/usr/bin/env python3
"""Audits the doc comments of a module's public symbols, from its symbol graph files.

    Scripts/doc-audit.py DIR [--list]

DIR holds the `<Module>.symbols.json` files that `swift-symbolgraph-extract` wrote (Scripts/docs.sh
makes them). For each public symbol declared in the module's own sources (not synthesized, not
inherited) it checks:

- a doc comment with a summary;
- for a function, initializer or subscript with parameters: `- Parameter x:` or `- Parameters:`
  naming each one (a single unnamed closure parameter of an operator counts too);
- for one that throws: `- Throws:`;
- for one that returns a value (not Void, not an initializer): `- Returns:`.

Members that implement a standard protocol requirement (`description`, `hash(into:)`, `==`,
`encode(to:)`, `init(from:)`, ...) inherit its documentation in DocC and are counted apart.
Prints one count per check; with --list, each symbol that fails one. Exits 1 when any fails.
"""

import glob
import json
import os
import re
import sys

INHERITED = {
    "description", "debugDescription", "hash(into:)", "hashValue", "==(_:_:)", "<(_:_:)",
    "encode(to:)", "init(from:)", "makeIterator()", "next()", "startIndex", "endIndex",
    "index(after:)", "index(before:)", "subscript(_:)", "count", "isEmpty",
    "init(arrayLiteral:)", "init(stringLiteral:)", "init(integerLiteral:)", "init(rawValue:)",
    "rawValue", "id", "customMirror", "underestimatedCount", "contains(_:)",
    "init(unicodeScalarLiteral:)", "init(extendedGraphemeClusterLiteral:)", "errorDescription",
    "localizedDescription",
}
CALLABLE = {"swift.func", "swift.method", "swift.type.method", "swift.init", "swift.subscript",
            "swift.func.op", "swift.type.subscript"}


def text_of(symbol):
    lines = symbol.get("docComment", {}).get("lines", [])
    return "\n".join(line.get("text", "") for line in lines)


def main():
    directory = sys.argv[1]
    show = "--list" in sys.argv
    problems = {"no doc comment": [], "no parameter docs": [], "no throws docs": [],
                "no returns docs": []}
    checked = inherited = 0
    for path in sorted(glob.glob(os.path.join(directory, "*.symbols.json"))):
        graph = json.load(open(path))
        module = graph["module"]["name"]
        own = os.path.basename(path) == module + ".symbols.json"
        # Conformances: a member whose parent type conforms to a standard protocol.
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            identifier = symbol["identifier"]["precise"]
            if "::SYNTHESIZED::" in identifier:
                continue
            if not own and "location" not in symbol:
                continue
            title = symbol["names"]["title"]
            name = ".".join(symbol.get("pathComponents", [title]))
            kind = symbol["kind"]["identifier"]
            doc = text_of(symbol)
            if not doc.strip():
                if title in INHERITED:
                    inherited += 1
                    continue
                problems["no doc comment"].append(name)
                continue
            checked += 1
            if kind not in CALLABLE or title in INHERITED:
                continue
            signature = symbol.get("functionSignature", {})
            parameters = [p for p in signature.get("parameters", [])]
            fragments = "".join(f.get("spelling", "") for f in symbol.get("declarationFragments", []))
            if parameters:
                names = [p.get("internalName", p.get("name")) for p in parameters]
                documented = re.findall(r"^\s*-\s*Parameter\s+(\S+)\s*:", doc, re.M)
                listed = re.search(r"^\s*-\s*Parameters\s*:", doc, re.M)
                missing = []
                for pname in names:
                    if pname in documented:
                        continue
                    if listed and re.search(r"^\s*-\s*" + re.escape(pname) + r"\s*:", doc, re.M):
                        continue
                    missing.append(pname)
                if missing:
                    problems["no parameter docs"].append(name + " (" + ", ".join(missing) + ")")
            if re.search(r"\bthrows\b", fragments.split("->")[0].split("{")[0]) and \
                    not re.search(r"^\s*-\s*Throws\s*:", doc, re.M):
                problems["no throws docs"].append(name)
            returns = signature.get("returns", [])
            spelled = "".join(r.get("spelling", "") for r in returns).strip()
            if kind != "swift.init" and spelled not in ("", "Void", "()") and \
                    not re.search(r"^\s*-\s*Returns\s*:", doc, re.M):
                problems["no returns docs"].append(name)
    failing = sum(len(v) for v in problems.values())
    print(f"doc audit {os.path.basename(directory.rstrip('/'))}: {checked} documented symbols, "
          f"{inherited} protocol implementations inheriting their docs, " +
          ", ".join(f"{len(v)} {k}" for k, v in problems.items()))
    if show:
        for kind, names in problems.items():
            for name in names:
                print(f"  {kind}: {name}")
    sys.exit(1 if failing else 0)


main()
