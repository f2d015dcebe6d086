"""Train the secret detector's second opinion (memory/sensitive/meaning.py) and say how good it is.

    pip install -e ".[test]"      (scikit-learn is a test extra: the app needs only numpy at run time)
    python benchmarks/train_secret_classifier.py            measure, then write memory/sensitive/classifier.json
    python benchmarks/train_secret_classifier.py --dry-run  measure only

A logistic regression over the bundled MiniLM embedding (384 dimensions) of every labelled phrasing:
tests/data/secrets.jsonl, the blind rounds 1-4 (secrets_blind.jsonl), round 5 (secrets_blind5.jsonl), round 6
(secrets_blind6.jsonl), our own phrasings of round 6's miss families (secrets_families6.jsonl), and rounds 7 to 12
(secrets_blind7.jsonl ... secrets_blind12.jsonl), all pooled (round 11, the lead's held-out round until its first
sight was measured, joined after it). Its opinion
counts only where meaning.worth_asking says so (a word a secret hangs on and something shaped like a value,
the rules having found nothing), so the figures below are measured the same way:

- held out: each blind round asked of a model trained only on what was written before it (round 5: the
  labelled set and rounds 1-4; round 6: those and round 5), rounds written by someone who had not seen the
  sets: how many of its secret texts it flags, how many of its near misses;
- leave one round out: each round asked of a model trained on every other set, alone and beside the rules (the
  figure a new round may expect);
- cross-validated: five folds over every set, each text asked by a model that did not see it;
- the threshold: the probability from which it says "secret", chosen for precision on near misses (a
  postcode masked is a failure): the figures are printed for several, the chosen one is THRESHOLD.

The weights are written with the figures, so the file says what it was trained on and how it did.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory.search.embeddings import LocalEmbedder  # noqa: E402
from memory.sensitive import is_sensitive, meaning, view_of  # noqa: E402

SETS = {"labelled": ROOT / "tests/data/secrets.jsonl", "rounds 1-4": ROOT / "tests/data/secrets_blind.jsonl",
        "round 5": ROOT / "tests/data/secrets_blind5.jsonl", "round 6": ROOT / "tests/data/secrets_blind6.jsonl",
        "round 6's families": ROOT / "tests/data/secrets_families6.jsonl",
        "round 7": ROOT / "tests/data/secrets_blind7.jsonl", "round 8": ROOT / "tests/data/secrets_blind8.jsonl",
        "round 9": ROOT / "tests/data/secrets_blind9.jsonl", "round 10": ROOT / "tests/data/secrets_blind10.jsonl",
        "round 11": ROOT / "tests/data/secrets_blind11.jsonl", "round 12": ROOT / "tests/data/secrets_blind12.jsonl"}
# Each blind round held out from a model trained on what was written before it.
HELD_OUT = {"round 5": ("labelled", "rounds 1-4"), "round 6": ("labelled", "rounds 1-4", "round 5")}
# Leave one round out: each set asked of a model trained on every other set, all rounds pooled.
ROUNDS = ("rounds 1-4", "round 5", "round 6", "round 6's families", "round 7", "round 8", "round 9", "round 10",
          "round 11", "round 12")
C = 10.0  # inverse regularisation; 1, 3, 10 and 30 were tried on round 5 held out (10: most caught at no false alarm)
THRESHOLD = 0.8
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)
FOLDS = 5


def rows(path: Path) -> list[dict]:
    return [r for r in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                        if line.strip() and not line.startswith("#")) if "text" in r]


def asked(text: str) -> bool:
    view = view_of(text)
    return meaning.worth_asking(view.text, view.words)


def figures(scores, labels, gate, threshold: float) -> dict[str, float | int]:
    """Text-level: secret texts flagged (recall) and near misses flagged, by the classifier alone."""
    flagged = (scores >= threshold) & gate
    secrets, near = labels == 1, labels == 0
    return {"secret_texts": int(secrets.sum()), "flagged": int((flagged & secrets).sum()),
            "recall": round(float((flagged & secrets).sum() / max(1, secrets.sum())), 3),
            "near_misses": int(near.sum()), "near_misses_flagged": int((flagged & near).sum()),
            "near_miss_rate": round(float((flagged & near).sum() / max(1, near.sum())), 3)}


def main() -> None:
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="measure only; write nothing")
    args = parser.parse_args()

    data = {name: rows(path) for name, path in SETS.items()}
    embedder = LocalEmbedder(cache_dir=ROOT / ".cache")
    matrices = {name: embedder.embed([r["text"] for r in rs]) for name, rs in data.items()}
    labels = {name: np.array([int(r["secret"]) for r in rs]) for name, rs in data.items()}
    gates = {name: np.array([asked(r["text"]) for r in rs]) for name, rs in data.items()}

    def model() -> LogisticRegression:
        return LogisticRegression(C=C, max_iter=5000, class_weight="balanced")

    # Held out: each blind round was written by someone who had seen neither the sets nor the rules.
    held_figures = {}
    for held_round, seen in HELD_OUT.items():
        held = model().fit(np.vstack([matrices[n] for n in seen]), np.concatenate([labels[n] for n in seen]))
        held_scores = held.predict_proba(matrices[held_round])[:, 1]
        print(f"Trained on {', '.join(seen)}; asked about {held_round} (classifier alone, where its opinion counts "
              "with today's rules):\n")
        print("| threshold | secret texts flagged | near misses flagged |\n| --- | --- | --- |")
        for t in THRESHOLDS:
            f = figures(held_scores, labels[held_round], gates[held_round], t)
            print(f"| {t} | {f['flagged']} / {f['secret_texts']} ({f['recall']:.3f}) | "
                  f"{f['near_misses_flagged']} / {f['near_misses']} ({f['near_miss_rate']:.3f}) |")
        held_figures[held_round] = figures(held_scores, labels[held_round], gates[held_round], THRESHOLD)
        print()

    # Leave one round out, every other set pooled: the figure a new round may expect.
    print("Leave one round out (trained on every other set): the classifier alone, where its opinion counts, and "
          "the rules with it (its opinion asked only where the rules find nothing):\n")
    print("| round held out | secret texts it flags | near misses it flags | rules alone: texts / near misses | "
          "rules and it: texts / near misses |\n| --- | --- | --- | --- | --- |")
    loro = {}
    for held_round in ROUNDS:
        others = [n for n in data if n != held_round]
        held = model().fit(np.vstack([matrices[n] for n in others]), np.concatenate([labels[n] for n in others]))
        scores_held = held.predict_proba(matrices[held_round])[:, 1]
        f = figures(scores_held, labels[held_round], gates[held_round], THRESHOLD)
        rules = np.array([is_sensitive(r["text"]) for r in data[held_round]])
        both = rules | (gates[held_round] & (scores_held >= THRESHOLD))
        secret, near = labels[held_round] == 1, labels[held_round] == 0
        f["with_rules"] = {"recall": round(float((both & secret).sum() / secret.sum()), 3),
                           "near_miss_rate": round(float((both & near).sum() / max(1, near.sum())), 3)}
        loro[held_round] = f
        print(f"| {held_round} | {f['flagged']} / {f['secret_texts']} ({f['recall']:.3f}) | "
              f"{f['near_misses_flagged']} / {f['near_misses']} ({f['near_miss_rate']:.3f}) | "
              f"{(rules & secret).sum() / secret.sum():.3f} / {(rules & near).sum() / max(1, near.sum()):.3f} | "
              f"{f['with_rules']['recall']:.3f} / {f['with_rules']['near_miss_rate']:.3f} |")
    print()

    # Cross-validated over every set.
    X = np.vstack(list(matrices.values()))
    y = np.concatenate(list(labels.values()))
    gate = np.concatenate(list(gates.values()))
    scores = np.zeros(len(y))
    for train, test in StratifiedKFold(FOLDS, shuffle=True, random_state=42).split(X, y):
        scores[test] = model().fit(X[train], y[train]).predict_proba(X[test])[:, 1]
    print(f"\n{FOLDS}-fold cross-validation over all {len(y)} phrasings (classifier alone):\n")
    print("| threshold | secret texts flagged | near misses flagged |\n| --- | --- | --- |")
    for t in THRESHOLDS:
        f = figures(scores, y, gate, t)
        print(f"| {t} | {f['flagged']} / {f['secret_texts']} ({f['recall']:.3f}) | "
              f"{f['near_misses_flagged']} / {f['near_misses']} ({f['near_miss_rate']:.3f}) |")
    print(f"\nOf the near misses, {int((gate & (y == 0)).sum())} of {int((y == 0).sum())} are worth asking about "
          f"at all (a word a secret hangs on and a value's shape); of the secret texts, {int((gate & (y == 1)).sum())} "
          f"of {int((y == 1).sum())} (the others the rules must find).")

    final = model().fit(X, y)
    out = {"model": meaning.MODEL, "dimension": int(X.shape[1]), "threshold": THRESHOLD, "C": C,
           "trained_on": {name: len(rs) for name, rs in data.items()},
           **{f"held_out_{name.replace(' ', '_')}": f for name, f in held_figures.items()},
           "leave_one_round_out": loro, "cross_validated": figures(scores, y, gate, THRESHOLD),
           "bias": round(float(final.intercept_[0]), 6),
           "weights": [round(float(w), 6) for w in final.coef_[0]]}
    if args.dry_run:
        return
    meaning.WEIGHTS.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"\nWrote {meaning.WEIGHTS.relative_to(ROOT)} (threshold {THRESHOLD}).")


if __name__ == "__main__":
    main()
