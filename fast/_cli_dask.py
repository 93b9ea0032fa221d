"""``privlearn impact DIR/`` on a Parquet directory, on a dask scheduler (issue 29): the command's dask branch.

``fast.cli`` hands over here when its input is a directory.  The coding runs through ``ImpactEncoder`` on a dask
DataFrame (``fast/estimators/_distributed_impact.py``: exact count tables per partition, the noise drawn once per column
on the driver); the coded rows are written as a Parquet directory by the workers (no row comes to the driver); the
tables file and the run record are the ones a CSV input gives.  The cluster: ``--scheduler ADDRESS`` connects to a
running one, ``--local-cluster N`` starts N local worker processes for this run (the command was told to), and
neither uses dask's default local scheduler.
"""
from __future__ import annotations

import contextlib
import json


@contextlib.contextmanager
def _client(args):
    """The distributed client the flags ask for, for the run (none: dask's default scheduler)."""
    if getattr(args, "scheduler", None):
        from distributed import Client

        with Client(args.scheduler):
            yield
    elif getattr(args, "local_cluster", None):
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=int(args.local_cluster), threads_per_worker=1, processes=True,
                          dashboard_address=":0", silence_logs=50) as cluster, Client(cluster):
            yield
    else:
        yield


def impact_parquet(args, *, record, classes, columns, levels) -> int:
    """The dask branch of ``cmd_impact`` (arguments already checked by it, levels and classes declared)."""
    import dask.dataframe as dd
    import numpy as np

    from fast import cli
    from fast.estimators.impact import ImpactEncoder

    if classes is None:
        raise cli.UsageError("a Parquet directory needs --classes NEG,POS (the label set is public input; reading it "
                             "would be a pass over the data)")
    if set(levels) != set(columns):
        raise cli.UsageError("a Parquet directory needs --levels for every coded column (the levels present would be "
                             "a pass over the data)")
    if args.mode in ("cross", "split") and not args.row_id:
        raise cli.UsageError(f"--mode {args.mode} on a Parquet directory needs --row-id COL (a stable integer id per "
                             "row: the folds are a keyed hash of it, not of positions)")
    with _client(args):
        frame = dd.read_parquet(args.csv)
        header = [str(c) for c in frame.columns]
        for c in [*columns, args.label, *([args.row_id] if args.row_id else [])]:
            if c not in header:
                raise cli.DataError(f"{args.csv}: no column {c!r}; the columns are "
                                    f"{', '.join(repr(h) for h in header)}")
        # cells as the CSV reader gives them (text): --classes and --levels are text
        coded = frame[columns].astype(str)
        if args.row_id:
            coded = coded.assign(**{args.row_id: frame[args.row_id]})
        y = frame[args.label].astype(str)
        enc = ImpactEncoder(mode=args.mode, random_state=args.seed, classes=classes,
                            categories=[levels[c] for c in columns], epsilon=args.epsilon, row_id=args.row_id)
        codes = enc.fit_transform(coded, y)  # lazy: coded by the workers
        keep = [h for h in header if h not in columns]
        out = frame[keep].assign(**{f"{c}_impact": codes[c] for c in columns})
        out.to_parquet(args.out, write_index=False)
    spent = getattr(enc, "privacy_spent_", None)
    tables = cli.impact_tables(enc, columns, label=args.label, classes=classes, mode=args.mode) \
        if args.tables is not None else None
    if tables is not None:
        cli.write_atomic(args.tables, json.dumps(cli._strict_json(tables), indent=2, allow_nan=False) + "\n")
    print(f"wrote {args.out}: a Parquet directory, {len(columns)} coded column(s) ({args.mode}; positive class "
          f"{classes[1]!r})")
    if spent is not None:
        print(f"privacy: the coding tables are ({spent.epsilon:.6g}, {spent.delta:.3g})-DP ({spent.neighbouring}); "
              f"the output also holds your other columns and labels: it is for your own training, not a release")
    else:
        print("privacy: none (no --epsilon): the codes are out-of-fold, not differentially private")
    cli.write_record(args, record, outputs=[args.out] + ([args.tables] if tables is not None else []),
                     privacy_spent=cli.spent_record(spent),
                     results={"columns": columns, "accuracy": getattr(enc, "accuracy_", None),
                              "input": "parquet", "rows_read_on_driver": 0})
    return cli.EXIT_OK


def parquet_header(path: str) -> list[str]:
    """The column names of a Parquet directory (its schema: no row is read)."""
    import dask.dataframe as dd

    return [str(c) for c in dd.read_parquet(path).columns]


def _cells(pdf, columns):
    """A partition's cells as the CSV reader gives them: text, '' for a missing value."""
    out = {}
    for c in columns:
        col = pdf[c]
        out[c] = ["" if v is None or (isinstance(v, float) and v != v) else str(v) for v in col.tolist()]
    return out


def _rados_block(pdf, label, features, spec, classes):
    """One partition: (X, y) through the command's own public preprocessing and declared labels (row-wise maps)."""
    import numpy as np

    from fast import cli

    cols = _cells(pdf, [label, *features])
    X = np.ascontiguousarray(cli.apply_preprocessing(spec, cols, private=True), dtype=np.float64)
    y = cli.declared_labels(cols[label], classes).astype(np.int8)
    return X, y


def _sensitive_block(pdf, label, sensitive, classes):
    """One partition for DP-Feat: (the protected column alone, as ``cli.private_numeric`` reads its cells, y)."""
    import numpy as np

    from fast import cli

    cols = _cells(pdf, [label, sensitive])
    X = np.ascontiguousarray(cli.private_numeric(cols[sensitive])[:, None], dtype=np.float64)
    return X, cli.declared_labels(cols[label], classes).astype(np.int8)


def rados_parquet(args, *, record, classes, features, spec) -> int:
    """The dask branch of ``cmd_rados`` (the public preprocessing already planned from the schema and the flags):
    the same source, guarantee, metadata, output file and record as a CSV input.  Gaussian edges: the rados from
    :func:`fast.estimators._distributed.private_edges_rados` (exact integer partials, the noise drawn once here).
    ``--sensitive COL`` (DP-Feat, the protected column alone): from
    :func:`fast.estimators._distributed_dp_feat.dp_feat_dask_rados` (the K's drawn once here, the agreeing sets
    chosen by words keyed by a fit secret and the global row id, exact rado partials)."""
    import math

    import dask
    import dask.array as da
    import dask.dataframe as dd
    import numpy as np

    from fast import cli, dp_rados
    from fast.estimators._distributed import private_edges_rados

    if spec is None and not args.sensitive:
        raise cli.DataError(f"{args.csv}: no feature column besides the label {args.label!r}")
    with _client(args):
        frame = dd.read_parquet(args.csv, columns=[args.label, *features])
        parts = frame.to_delayed()
        lengths = dask.compute(*[dask.delayed(len)(p) for p in parts])  # row counts only
        m = int(sum(lengths))
        if args.sensitive:  # cmd_rados refused every other column: X is the protected column alone
            d = 1
            blocks = [dask.delayed(_sensitive_block, nout=2)(p, args.label, args.sensitive, classes) for p in parts]
        else:
            d = len(spec["features"])
            blocks = [dask.delayed(_rados_block, nout=2)(p, args.label, features, spec, classes) for p in parts]
        X = da.concatenate([da.from_delayed(b[0], shape=(r, d), dtype=np.float64) for b, r in zip(blocks, lengths)])
        y = da.concatenate([da.from_delayed(b[1], shape=(r,), dtype=np.int8) for b, r in zip(blocks, lengths)])
        if args.sensitive:
            source = dp_rados.dp_feat(0, args.epsilon, args.delta)
            mechanism = (f"DP-Feat (nock2015 Alg. 2) protecting column {args.sensitive!r} only: the rados hold that "
                         "column alone (other feature columns are refused: their exact sums would identify the "
                         "signatures and with them the protected values)")
        else:
            if args.support > m:
                raise cli.UsageError(f"--support {args.support} exceeds the number of examples")
            clip = math.sqrt(len(spec["columns"]))
            source = dp_rados.gaussian_edges(args.epsilon, args.delta, args.support, clip=clip)
            mechanism = (f"Gaussian edges (nock2015 s5.2): edges y_i x_i (rows clipped to L2 norm {clip:.6g}) "
                         f"released once with the exact discrete Gaussian, rados = sums of {args.support} noisy "
                         "edges; every example protected (replace-one)")
        spent = source.guarantee(m, args.n)
        noise = source.noise_report(m, d)
        dp_rados.warn_if_noise_dominates(noise)
        if args.sensitive:
            from fast.estimators._distributed_dp_feat import dp_feat_dask_rados

            rados, _ = dp_feat_dask_rados(source, X, y, args.n, None, m)
        else:
            rados, _ = private_edges_rados(source, X, y, args.n, np.random.default_rng(args.seed), None, m, d)
    features = [args.sensitive] if args.sensitive else list(spec["features"])
    meta = {
        "privlearn": cli._version(), "mechanism": mechanism,
        "epsilon": float(spent[0]), "delta": float(spent[1]), "granted": [args.epsilon, args.delta],
        "format": 2, "m": m, "n": int(rados.shape[0]), "support": None if args.sensitive else args.support,
        "label": args.label, "labels": {"-1": classes[0], "+1": classes[1]},
        "features": features, "sensitive": args.sensitive,
        "bounds": {} if spec is None else {c["name"]: c["bounds"] for c in spec["columns"] if c["kind"] == "numeric"},
        "scaling": "x -> clip((2x - lo - hi)/(hi - lo), -1, 1) with the public bounds",
        "preprocessing": spec,
        "rows": "one rado per row (the papers write rados as columns)",
    }
    records = [[cli.RADOS_MAGIC + json.dumps(meta, sort_keys=True)], [cli.neutralise_cell(f) for f in features]]
    records += [[repr(float(v)) for v in row] for row in rados]
    cli.write_csv(args.out, records)
    print(f"wrote {rados.shape[0]} rados of {len(features)} features to {args.out}")
    print(f"privacy: ({spent[0]:.6g}, {spent[1]:.3g})-DP, {mechanism}")
    cli.write_record(args, record, outputs=[args.out],
                     privacy_spent=cli.spent_record(source.privacy_spent_for_fit(m, args.n, len(features))),
                     results={"m": m, "n": int(rados.shape[0]), "mechanism": mechanism,
                              "noise_report": None if noise is None else noise.as_dict(),
                              "input": "parquet", "rows_read_on_driver": 0})
    return cli.EXIT_OK


__all__ = ["impact_parquet", "parquet_header", "rados_parquet"]
