"""Fit memory/change_score.json, the learned reading of a change where the hand readings doubt, and measure it
held out, round by round.

    python benchmarks/fit_changes.py [--c 0.1] [--all] [--write] [--rows CACHE]

Every labelled pair of tests/data/supersession*.tsv (the rules' own set, the calibration set and the blind
rounds of issue 42: each file is a round) is written through memory.memories.remember in a fresh store with
the learned reading switched off, as bench_changes.py does: what the hand readings decide (`now`). Each newer
statement is also paired with the three memories of supersession_background.txt nearest it in meaning (never
a change: an unrelated memory it must not replace). Each pair gets memory.change_score's features (the
cosines of the two statements masked and as written; each reading of memory.subjects as a feature, the
conflicts it names too) and its sure veto (another owner, another one of a group of alternatives, a plan, a
question, the same value...).

A logistic regression (scikit-learn, features standardised) is fitted on the pairs the hand readings do not
replace and no sure veto holds (with --all, on every pair no sure veto holds); a pair replaces when the hand
readings do, or when no sure veto holds and its score reaches the bar. Leave-one-round-out: for each round
held out, the model is fitted on the other rounds, and its bar is the lowest at which each of those rounds,
scored by a model fitted without it, keeps its look-alikes untouched >= 0.98 and replaces <= 1 % of its
unrelated memories. The figures printed for a round are the held-out round's, before (the hand readings)
and after. --write fits on every round and keeps the bar chosen the same way over all of them.
"""
from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_changes import SETS, background, fresh_store, links, pairs  # noqa: E402

MIN_UNTOUCHED, MAX_UNRELATED = 0.98, 0.01


def decided(embedder: Any) -> list[dict[str, Any]]:
    """Every labelled pair with what the hand readings decide (through remember, in a fresh store)."""
    from memory import change_score, memories

    switched_off = change_score.model
    change_score.model = lambda: None  # type: ignore[assignment]
    rows = []
    try:
        for name in SETS:
            store = fresh_store()
            for want, older, newer in pairs(name):
                with store.transaction():
                    store.execute("DELETE FROM knowledge")
                a = memories.remember(store, older, kind="fact", embedder=embedder)
                b = memories.remember(store, newer, kind="fact", embedder=embedder)
                rows.append({"round": name, "want": want, "older": older, "newer": newer,
                             "now": links(store).get(a.id) == b.id, "unrelated": False})
            store.close()
    finally:
        change_score.model = switched_off
    return rows


def featured(rows: list[dict[str, Any]], embedder: Any) -> None:
    """Each pair's cosines (`cosines`), in place; the unrelated pairs added."""
    import numpy as np

    from memory import subjects

    read: dict[str, subjects.Said] = {}

    def said(text: str) -> subjects.Said:
        if text not in read:
            read[text] = subjects.read(text)
        return read[text]

    others = background()
    other_vectors = np.stack(embedder.embed([said(t).masked for t in others]))
    newers = {r["newer"]: r["round"] for r in rows}
    own = dict(zip(newers, embedder.embed([said(t).masked for t in newers]), strict=True))
    paired: dict[str, set[str]] = {}
    for r in rows:
        paired.setdefault(r["newer"], set()).add(subjects.plain_value(r["older"]))
    for newer, name in newers.items():
        nearest = [j for j in np.argsort(-(other_vectors @ own[newer]))
                   if subjects.plain_value(others[j]) not in paired[newer]]  # its own older memory is no unrelated one
        for j in nearest[:3]:
            rows.append({"round": name, "want": False, "older": others[j], "newer": newer, "now": False,
                         "unrelated": True})
    texts = sorted({t for r in rows for t in (r["older"], r["newer"])})
    masked = dict(zip(texts, embedder.embed([said(t).masked for t in texts]), strict=True))
    plain = dict(zip(texts, embedder.embed([said(t).text for t in texts]), strict=True))  # as replacing embeds them
    for r in rows:
        mn, mo, pn, po = masked[r["newer"]], masked[r["older"]], plain[r["newer"]], plain[r["older"]]
        r["cosines"] = (float(mn @ mo), float(pn @ po), float(pn @ mo), float(mn @ po))


def readings(rows: list[dict[str, Any]]) -> None:
    """Each pair's features (`x`) and sure veto (`veto`), in place, from its cosines and the words."""
    from memory import change_score, subjects

    read: dict[str, subjects.Said] = {}
    for r in rows:
        for text in (r["newer"], r["older"]):
            if text not in read:
                read[text] = subjects.read(text)
        n, o = read[r["newer"]], read[r["older"]]
        r["x"] = change_score.features(n, o, r["cosines"])
        r["veto"] = change_score.sure_veto(n, o)


def fitted(train: list[dict[str, Any]], c: float, every: bool) -> Any:
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    chosen = [r for r in train if not r["veto"] and (every or not r["now"])]
    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000)).fit(
        np.array([r["x"] for r in chosen]), np.array([r["want"] for r in chosen]))


def scores(model: Any, rows: list[dict[str, Any]]) -> list[float]:
    import numpy as np

    return [float(s) for s in model.decision_function(np.array([r["x"] for r in rows]))]


def figures(rows: list[dict[str, Any]], score: list[float], bar: float) -> tuple[float, float, float]:
    """(changes replaced, look-alikes untouched, unrelated memories replaced) with the model at `bar`."""
    def replaces(r: dict[str, Any], s: float) -> bool:
        return bool(r["now"] or not r["veto"] and s >= bar)

    changes = [replaces(r, s) for r, s in zip(rows, score, strict=True) if r["want"]]
    lookalikes = [not replaces(r, s) for r, s in zip(rows, score, strict=True) if not r["want"] and not r["unrelated"]]
    unrelated = [replaces(r, s) for r, s in zip(rows, score, strict=True) if r["unrelated"]]
    return (sum(changes) / max(1, len(changes)), sum(lookalikes) / max(1, len(lookalikes)),
            sum(unrelated) / max(1, len(unrelated)))


def bar(held_out: dict[str, tuple[list[dict[str, Any]], list[float]]]) -> float:
    """The lowest score at which every round, scored held out, keeps its look-alikes and unrelated memories."""
    every = sorted({s for rows, score in held_out.values() for r, s in zip(rows, score, strict=True)
                    if not r["now"] and not r["veto"]}, reverse=True)
    chosen = float("inf")
    for t in every:
        if all(f[1] >= MIN_UNTOUCHED and f[2] <= MAX_UNRELATED
               for f in (figures(rows, score, t) for rows, score in held_out.values())):
            chosen = t
        else:
            break
    return chosen


def held_out_scores(by_round: dict[str, list[dict[str, Any]]], rounds: list[str], c: float,
                    every: bool) -> dict[str, tuple[list[dict[str, Any]], list[float]]]:
    """Each of `rounds` scored by a model fitted on the others of `rounds`."""
    found = {}
    for name in rounds:
        model = fitted([r for n in rounds if n != name for r in by_round[n]], c, every)
        found[name] = (by_round[name], scores(model, by_round[name]))
    return found


def kept(model: Any, chosen: float, held: dict[str, Any]) -> dict[str, Any]:
    """The model as change_score.json holds it: the scaling folded into the weights."""
    from memory import change_score

    scaler, regression = model.steps[0][1], model.steps[1][1]
    weights = regression.coef_[0] / scaler.scale_
    bias = float(regression.intercept_[0] - (weights * scaler.mean_).sum())
    return {"model": change_score.MODEL, "features": list(change_score.FEATURES), "bar": round(chosen, 6),
            "bias": round(bias, 6), "weights": [round(float(w), 6) for w in weights], "held_out": held,
            "fitted_by": "benchmarks/fit_changes.py"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--c", type=float, default=0.1, help="the logistic regression's inverse regularisation")
    parser.add_argument("--all", action="store_true", help="fit on every pair no sure veto holds, not only the open")
    parser.add_argument("--write", action="store_true", help="fit on every round and write memory/change_score.json")
    parser.add_argument("--rows", type=Path, help="a cache of the pairs' readings (made if missing)")
    args = parser.parse_args()
    if args.rows is not None and args.rows.exists():
        rows = pickle.loads(args.rows.read_bytes())
    else:
        from memory.search.embeddings import bundled_embedder

        embedder = bundled_embedder()
        embedder.load()
        rows = decided(embedder)
        featured(rows, embedder)
        if args.rows is not None:
            args.rows.write_bytes(pickle.dumps(rows))
    readings(rows)
    by_round = {name: [r for r in rows if r["round"] == name] for name in SETS}
    print(f"{'held-out round':26} {'changes':>7} {'replaced':>15} {'look-alikes':>11} {'untouched':>15} "
          f"{'unrelated':>9}  bar")
    held: dict[str, Any] = {}
    for name in SETS:
        others = [n for n in SETS if n != name]
        chosen = bar(held_out_scores(by_round, others, args.c, args.all))
        model = fitted([r for n in others for r in by_round[n]], args.c, args.all)
        test = by_round[name]
        before, after = figures(test, [float("-inf")] * len(test), float("inf")), \
            figures(test, scores(model, test), chosen)
        changes = sum(r["want"] for r in test)
        lookalikes = sum(not r["want"] and not r["unrelated"] for r in test)
        held[name] = {"replaced": [round(before[0], 3), round(after[0], 3)],
                      "untouched": [round(before[1], 3), round(after[1], 3)], "unrelated": round(after[2], 4)}
        print(f"{name:26} {changes:7} {before[0]:.3f} -> {after[0]:.3f} {lookalikes:11} {before[1]:.3f} -> "
              f"{after[1]:.3f} {after[2]:9.3f}  {chosen:.2f}")
    if args.write:
        from memory import change_score

        chosen = bar(held_out_scores(by_round, list(SETS), args.c, args.all))
        model = fitted(rows, args.c, args.all)
        change_score.WEIGHTS.write_text(json.dumps(kept(model, chosen, held), indent=1) + "\n", encoding="utf-8")
        print(f"written {change_score.WEIGHTS.relative_to(ROOT)} (bar {chosen:.3f})")


if __name__ == "__main__":
    main()
