"""The 3D view of the Run page and the benchmark's side view: pure builders from run results (the dicts of
:func:`solvers.figures.record`) to the animation's frames, its figure and a small SVG schematic."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .figures import (
    AXIS_COLORS,
    AXIS_NAMES,
    SCENE_FRAMES,
    Figure,
    _array,
    _array_points,
    _with_data,
    run_color,
    run_label,
)


def screen_rotation(gravity: Sequence[float] | None) -> np.ndarray:
    """A proper rotation taking the world's gravity direction to screen-down (-z of the 3D view)."""
    if gravity is None:
        return np.eye(3)
    g = np.asarray(gravity, dtype=float)
    g = g / np.linalg.norm(g)
    down = np.array([0.0, 0.0, -1.0])
    axis = np.cross(g, down)
    s, c = np.linalg.norm(axis), float(g @ down)
    if s < 1e-12:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])  # half turn about x
    k = axis / s
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + s * kx + (1 - c) * kx @ kx


def _segments(point_names: Sequence[str]) -> tuple[list[int], list[tuple[int, int, int]]]:
    """How to draw a model's points: the chain (indices joined by rods) and triad axes (anchor, tip, axis)."""
    chain, axes = [], []
    for k, name in enumerate(point_names):
        if name in AXIS_NAMES and chain:
            axes.append((chain[-1], k, AXIS_NAMES[name]))
        else:
            chain.append(k)
    return chain, axes


def scene_data(results: Sequence[dict], gravity: Sequence[float] | None, frames: int = SCENE_FRAMES) -> dict:
    """Frames of the 3D view for the browser: per run the chain and triad coordinates in screen axes.

    ``{"t": [...], "runs": [{"label", "color", "chain": [frame][k][3], "axes": [[anchor, tip, axis]...],
    "status", "t_last"}], "range": [lo, hi], "gravity": bool}``; frames are evenly spaced in time over the
    longest run; a run that stopped early (diverged, failed) holds its last state.
    """
    runs = [(i, r) for i, r in _with_data(results) if _array_points(r).shape[1] > 0]
    if not runs:
        return {"t": [], "runs": [], "range": [-1.0, 1.0], "gravity": gravity is not None}
    rot = screen_rotation(gravity)
    t_max = max(float(_array(r["t"])[-1]) for _, r in runs)
    times = np.linspace(0.0, t_max, frames)
    out_runs, lo, hi = [], np.full(3, np.inf), np.full(3, -np.inf)
    for i, r in runs:
        t = _array(r["t"])
        pts = _array_points(r) @ rot.T
        finite = np.isfinite(pts).all(axis=(1, 2))
        t, pts = t[finite], pts[finite]
        if len(t) == 0:
            continue
        idx = np.clip(np.searchsorted(t, times, side="right") - 1, 0, len(t) - 1)
        nxt = np.minimum(idx + 1, len(t) - 1)
        span = np.where(t[nxt] > t[idx], t[nxt] - t[idx], 1.0)
        w = np.clip((times - t[idx]) / span, 0.0, 1.0)[:, None, None]
        sampled = (1 - w) * pts[idx] + w * pts[nxt]
        lo, hi = np.minimum(lo, sampled.min(axis=(0, 1))), np.maximum(hi, sampled.max(axis=(0, 1)))
        chain, axes = _segments(r.get("point_names") or [])
        out_runs.append({
            "label": run_label(r), "color": run_color(i), "status": r.get("status", "?"), "t_last": float(t[-1]),
            "chain": np.round(sampled[:, chain], 4).tolist(),
            "axes": [[chain.index(a), int(tip), int(ax)] for a, tip, ax in axes],
            "tips": np.round(sampled[:, [tip for _, tip, _ in axes]], 4).tolist() if axes else [],
        })
    centre, half = (lo + hi) / 2, max(float(np.max(hi - lo)) / 2, 0.1) * 1.15
    return {"t": np.round(times, 6).tolist(), "runs": out_runs,
            "range": [[float(c - half), float(c + half)] for c in centre], "gravity": gravity is not None}


def _scene_traces(run: dict, frame: int) -> list[dict]:
    chain = run["chain"][frame]
    xs, ys, zs = (list(v) for v in zip(*chain, strict=True))
    traces = [{"type": "scatter3d", "x": xs, "y": ys, "z": zs, "mode": "lines+markers", "name": run["label"],
               "legendgroup": run["label"], "line": {"color": run["color"], "width": 7},
               "marker": {"size": 4, "color": run["color"]}, "hoverinfo": "name"}]
    for j, (anchor, _tip, axis) in enumerate(run["axes"]):
        a, b = chain[anchor], run["tips"][frame][j]
        traces.append({"type": "scatter3d", "x": [a[0], b[0]], "y": [a[1], b[1]], "z": [a[2], b[2]], "mode": "lines",
                       "line": {"color": AXIS_COLORS[axis], "width": 5}, "legendgroup": run["label"],
                       "showlegend": False, "hoverinfo": "skip"})
    return traces


def scene_figure(scene: dict, frame: int = 0) -> Figure:
    """The 3D view at one frame: a gravity arrow (static, first traces) then each run's chain and triads.

    The browser's animation loop restyles the run traces in place (see assets/run_page.js); the order of
    the traces here is the contract it relies on (:func:`static_trace_count` traces come first).
    """
    layout = {
        "template": "plotly_white", "margin": {"l": 0, "r": 0, "t": 30, "b": 0}, "uirevision": "scene",
        "legend": {"orientation": "h", "y": 1.0, "x": 0.0},
        "title": {"text": "Mechanism (gravity points down)" if scene.get("gravity") else "Mechanism",
                  "x": 0.01, "y": 0.98, "font": {"size": 15}},
    }
    fig: Figure = {"data": [], "layout": layout}
    if not scene.get("runs"):
        layout["annotations"] = [{"text": "Run a configuration to see the mechanism move.", "xref": "paper",
                                  "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False,
                                  "font": {"size": 14, "color": "#6b7280"}}]
        layout["scene"] = {"xaxis": {"visible": False}, "yaxis": {"visible": False}, "zaxis": {"visible": False}}
        return fig
    (x0, x1), (y0, y1), (z0, z1) = scene["range"]
    if scene.get("gravity"):
        top, length = z1 - 0.05 * (z1 - z0), 0.18 * (z1 - z0)
        fig["data"].append({"type": "scatter3d", "x": [x0, x0], "y": [y1, y1], "z": [top, top - length],
                            "mode": "lines+text", "text": ["g", ""], "textposition": "top center",
                            "line": {"color": "#111827", "width": 5}, "showlegend": False, "hoverinfo": "skip"})
        fig["data"].append({"type": "cone", "x": [x0], "y": [y1], "z": [top - length], "u": [0], "v": [0],
                            "w": [-0.35 * length], "anchor": "tip", "sizemode": "absolute",
                            "sizeref": 0.35 * length, "showscale": False,
                            "colorscale": [[0, "#111827"], [1, "#111827"]], "hoverinfo": "skip"})
    for run in scene["runs"]:
        fig["data"].extend(_scene_traces(run, min(frame, len(run["chain"]) - 1)))
    layout["scene"] = {
        "xaxis": {"range": [x0, x1], "title": {"text": ""}}, "yaxis": {"range": [y0, y1], "title": {"text": ""}},
        "zaxis": {"range": [z0, z1], "title": {"text": ""}}, "aspectmode": "cube",
        "camera": {"eye": {"x": 1.25, "y": -1.6, "z": 0.7}, "up": {"x": 0, "y": 0, "z": 1}},
    }
    return fig


def static_trace_count(scene: dict) -> int:
    """Traces before the first run's in :func:`scene_figure` (the gravity arrow)."""
    return 2 if scene.get("gravity") and scene.get("runs") else 0


def schematic_svg(points: np.ndarray, point_names: Sequence[str], gravity: Sequence[float] | None,
                  size: int = 120) -> str:
    """A small side view (SVG) of a model's initial configuration: rods, triads and a gravity arrow."""
    rot = screen_rotation(gravity)
    p = np.asarray(points, dtype=float).reshape(-1, 3) @ rot.T
    xy = p[:, [0, 2]] if np.ptp(p[:, 0]) + np.ptp(p[:, 2]) > 1e-9 else p[:, [1, 2]]
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = max(float(np.max(hi - lo)), 1e-9)
    pad = 18.0
    scale = (size - 2 * pad) / span
    centre = (lo + hi) / 2

    def sx(v: np.ndarray) -> tuple[float, float]:
        return (size / 2 + (v[0] - centre[0]) * scale, size / 2 - (v[1] - centre[1]) * scale)

    chain, axes = _segments(point_names)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">',
             f'<rect width="{size}" height="{size}" rx="8" fill="#f1f5f9"/>']
    coords = [sx(xy[k]) for k in chain]
    if len(coords) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(f'<polyline points="{path}" fill="none" stroke="#1f2937" stroke-width="4" '
                     'stroke-linecap="round" stroke-linejoin="round"/>')
    for anchor, tip, axis in axes:
        (x0, y0), (x1, y1) = sx(xy[anchor]), sx(xy[tip])
        parts.append(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="{AXIS_COLORS[axis]}" '
                     'stroke-width="3"/>')
    for x, y in coords:
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="#2563eb"/>')
    if gravity is not None:
        parts.append('<line x1="10" y1="8" x2="10" y2="30" stroke="#6b7280" stroke-width="2"/>'
                     '<polygon points="6,28 14,28 10,35" fill="#6b7280"/>'
                     '<text x="15" y="20" font-size="11" fill="#6b7280" font-family="sans-serif">g</text>')
    parts.append("</svg>")
    return "".join(parts)
