"""``judgekit rubrics list`` and ``judgekit rubrics show NAME``."""

from __future__ import annotations

import argparse

from judgekit.cli._common import print_json, say


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rubrics", help="list the audit rubrics or show one",
                       description="List the IFE rubrics audits can use (judgekit's own and "
                                   "those installed packages add), or show one.")
    rsub = p.add_subparsers(dest="rubrics_command", metavar="ACTION")
    ls = rsub.add_parser("list", help="list the rubrics")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.set_defaults(func=run_list)
    show = rsub.add_parser("show", help="show one rubric as the judge reads it")
    show.add_argument("name", metavar="NAME|PATH")
    show.add_argument("--json", action="store_true", help="print the parsed metadata as JSON")
    show.set_defaults(func=run_show)

    def usage(args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=usage)


def run_list(args: argparse.Namespace) -> int:
    from judgekit.audit.rubric import rubric_catalog

    catalog = rubric_catalog()
    for line in catalog.problems:
        say(f"warning: {line}")
    if args.json:
        print_json([{"id": e.rubric.id, "title": e.rubric.title, "benchmark": e.rubric.benchmark,
                     "version": e.rubric.version,
                     "categories": [c.name for c in e.rubric.categories], "source": e.source}
                    for e in catalog.entries])
        return 0
    width = max((len(e.rubric.id) for e in catalog.entries), default=0)
    for e in catalog.entries:
        r = e.rubric
        source = "" if e.builtin else f"  (from {e.source})"
        print(f"{r.id:<{width}}  {len(r.categories):>2} categories  {r.title}{source}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from judgekit.audit.rubric import load_rubric

    rubric = load_rubric(args.name)
    if args.json:
        print_json(rubric.model_dump(mode="json"))
    else:
        print(rubric.render(), end="")
    return 0
