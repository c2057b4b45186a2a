"""``judgekit review DIR``: read each verdict beside its evidence, label it blind, then see
the judge's verdict (docs/review.md)."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit.cli._common import say

if TYPE_CHECKING:
    from judgekit.review import ReviewServer


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "review", help="a local app to label verdicts blind and see the judge's after",
        description="Serve a local app over an --out DIR of judge or audit: each compared "
                    "pair's two solutions side by side (arms hidden, sides shuffled) and "
                    "each audited result's evidence; label with the keys (a, b, d; 1, 0; j, "
                    "k; ? shows them); the judge's verdicts are shown once the item is "
                    "labelled. Labels are appended to DIR/labels/pairwise.jsonl and "
                    "DIR/labels/audit.jsonl as they are given. Listens on 127.0.0.1 only; "
                    "the printed URL carries the session's token (the browser is opened "
                    "through a private local page, never with the token on its command "
                    "line). An output with nothing to label is refused (exit 2).")
    p.add_argument("dir", type=Path, metavar="DIR", help="a directory written by --out")
    p.add_argument("--port", type=int, default=0, metavar="N",
                   help="the port on 127.0.0.1 (default: any free port)")
    p.add_argument("--labeller", default="anonymous", metavar="NAME",
                   help="whose labels these are (kept with each label; default anonymous)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the queue's random order and the sides' shuffle, kept "
                        "with each label (default: judgekit's fixed seed)")
    p.add_argument("--no-browser", action="store_true", help="print the URL, open nothing")
    p.set_defaults(func=run)


def _open_browser(server: ReviewServer, page: Path) -> None:
    """Open the private launcher ``page`` (its path, not the token, on the browser's command
    line); remove it once the app's page has been served."""
    import webbrowser

    from judgekit.review.launch import remove_launcher

    if not webbrowser.open(page.as_uri()):
        say("review: no browser could be started: open the URL above")
        remove_launcher(page)
        return
    server.page_served.wait()
    remove_launcher(page)


def run(args: argparse.Namespace) -> int:
    from judgekit import stats
    from judgekit.errors import ConfigError, InputError
    from judgekit.review import ReviewServer, load_queue
    from judgekit.review.launch import launcher_page, remove_launcher
    from judgekit.review.sampling import SampledState, SampledStore

    if not 0 <= args.port <= 65535:
        raise ConfigError(f"{{option:port}} {args.port}: not a port number (0 to 65535)")
    if not args.labeller.strip():
        raise ConfigError("{option:labeller}: give a name")
    queue = load_queue(args.dir, stats.DEFAULT_SEED if args.seed is None else args.seed)
    if not queue.items:
        raise InputError(args.dir, None, "nothing to label: no compared pair "
                         "(pairwise.jsonl) and no audited result (audit.jsonl); "
                         "`judgekit judge` or `judgekit audit` with --out writes them")
    store = SampledStore(args.dir, args.labeller.strip())
    for line in store.bad_lines:
        say(f"review: not a whole label, left out (kept in the file): {line}")
    if queue.missing_runs:
        say(f"review: {queue.missing_runs} result(s) of the records are not in runs.jsonl; "
            "their items show no diff or text")
    try:
        server = ReviewServer(SampledState(queue, store, _targets(args.dir)), args.port)
    except OSError as exc:
        raise ConfigError(f"{{option:port}} {args.port}: cannot listen on 127.0.0.1 "
                          f"({exc.strerror or exc})") from None
    state = server.state
    done = sum(state.labelled(it) for it in queue.items)
    stale = state.stale_labels()
    if stale:
        say(f"review: {stale} label(s) by {store.labeller} were given to content that has "
            "changed since (re-judged): stale, not counted; those items are to be labelled "
            "again")
    say(f"review: {len(queue.items)} item(s) in random order (seed {queue.seed}), {done} "
        f"labelled by {store.labeller}; stop with Ctrl-C")
    print(server.url, flush=True)
    page = None
    if not args.no_browser:
        page = launcher_page(server.url)
        threading.Thread(target=_open_browser, args=(server, page), daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if page is not None:
            remove_launcher(page)
    return 0


def _targets(out: Path) -> dict[str, dict[str, object]]:
    """The label budgets `judgekit calibrate --target-width` kept in calibration.json."""
    from judgekit.report.calibration import read_calibration
    from judgekit.review.sampling import label_targets

    cal = read_calibration(out)
    if cal is None:
        return {}
    return label_targets({
        "pairwise": [c for dims in (cal.pairwise.corrected if cal.pairwise else {}).values()
                     for c in dims.values()],
        "audit": list(cal.audit.corrected.values()) if cal.audit else []})
