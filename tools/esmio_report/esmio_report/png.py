"""--png: the timeline drawn with matplotlib (Agg, no display)."""

from . import load


def render(tr, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    lanes = []  # (label, rank, track ids)
    for r in tr.ranks:
        for group in ("calls", "phases"):
            ids = [i for i, (g, _) in enumerate(r.tracks) if g == group]
            lanes.append(("%s %s" % (r.label, group), r, set(ids)))
    fig, ax = plt.subplots(figsize=(14, 1 + 0.35 * len(lanes)))
    used = []
    for y, (label, r, ids) in enumerate(lanes):
        per = {}
        for s in r.spans:
            if s.track in ids:
                per.setdefault(s.counter, []).append((s.start - tr.t0, max(s.seconds, 0)))
        for counter, bars in per.items():
            ax.broken_barh(bars, (y - 0.4, 0.8), facecolors=load.colour(counter))
            if counter not in used:
                used.append(counter)
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([l for l, _, _ in lanes], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("seconds since esmio_init (rank 0's clock)")
    ax.set_title("esmio timeline: %s" % tr.path)
    ax.legend(handles=[Patch(color=load.colour(n), label=n) for n in used], fontsize=8,
              loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
