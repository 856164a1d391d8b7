"""The 3D view of the Run page and the benchmark's side view: pure builders from run results (the dicts of
:func:`solvers.figures.record`) to the animation's frames, its figure and a small SVG schematic."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .figures import (
    AXIS_COLORS,
    AXIS_NAMES,
    SCENE_FRAMES,
    SCENE_MIN_FRAMES,
    SCENE_POINT_FRAMES,
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
    chain: list[Any] = []
    axes: list[Any] = []
    for k, name in enumerate(point_names):
        if name in AXIS_NAMES and chain:
            axes.append((chain[-1], k, AXIS_NAMES[name]))
        else:
            chain.append(k)
    return chain, axes


def scene_frames(results: Sequence[dict], frames: int = SCENE_FRAMES, budget: int = SCENE_POINT_FRAMES) -> int:
    """Frames of the 3D view for these runs: ``frames``, fewer when the drawn points of every run times the frames
    would exceed ``budget`` (a chain of many rods), but at least SCENE_MIN_FRAMES (the browser interpolates)."""
    points = sum(_array_points(r).shape[1] for _, r in _with_data(results))
    if points == 0:
        return frames
    return min(frames, max(SCENE_MIN_FRAMES, budget // points))


def scene_decimals(span: float) -> int:
    """Decimals of the scene's coordinates: steps of at most 2e-4 of the view's size (a tenth of a pixel on a
    500-pixel view), 4 at most (0.1 mm: a mechanism of a few metres), 1 at least."""
    if not span > 0 or not np.isfinite(span):
        return 4
    return int(min(4, max(1, -np.floor(np.log10(2e-4 * span)))))


def scene_data(results: Sequence[dict], gravity: Sequence[float] | None, frames: int = SCENE_FRAMES,
               budget: int = SCENE_POINT_FRAMES) -> dict:
    """Frames of the 3D view for the browser: per run the chain and triad coordinates in screen axes.

    ``{"t": [...], "runs": [{"label", "color", "chain": [frame][k][3], "axes": [[anchor, tip, axis]...],
    "status", "t_last"}], "range": [lo, hi], "gravity": bool}``; frames are evenly spaced in time over the
    longest run; a run that stopped early (diverged, failed) holds its last state. The payload is bounded: at
    most ``budget`` drawn points x frames over all runs (:func:`scene_frames`: a 64-rod chain gets fewer frames),
    coordinates rounded to a fraction of the view (:func:`scene_decimals`).
    """
    runs = [(i, r) for i, r in _with_data(results) if _array_points(r).shape[1] > 0]
    if not runs:
        return {"t": [], "runs": [], "range": [-1.0, 1.0], "gravity": gravity is not None}
    rot = screen_rotation(gravity)
    t_max = max(float(_array(r["t"])[-1]) for _, r in runs)
    times = np.linspace(0.0, t_max, scene_frames([r for _, r in runs], frames, budget))
    drawn, lo, hi = [], np.full(3, np.inf), np.full(3, -np.inf)
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
        drawn.append((i, r, t, sampled))
    if not drawn:
        return {"t": [], "runs": [], "range": [-1.0, 1.0], "gravity": gravity is not None}
    centre, half = (lo + hi) / 2, max(float(np.max(hi - lo)) / 2, 0.1) * 1.15
    decimals = scene_decimals(2 * half)
    out_runs = []
    for i, r, t, sampled in drawn:
        chain, axes = _segments(r.get("point_names") or [])
        out_runs.append({
            "label": run_label(r), "color": run_color(i), "status": r.get("status", "?"), "t_last": float(t[-1]),
            "chain": np.round(sampled[:, chain], decimals).tolist(),
            "axes": [[chain.index(a), int(tip), int(ax)] for a, tip, ax in axes],
            "tips": np.round(sampled[:, [tip for _, tip, _ in axes]], decimals).tolist() if axes else [],
        })
    return {"t": np.round(times, 6).tolist(), "runs": out_runs,
            "range": [[float(c - half), float(c + half)] for c in centre], "gravity": gravity is not None}


def _thinning(points: int) -> float:
    """How much thinner than for a few bodies a chain of ``points`` points is drawn: 1 up to 9 points, then
    sqrt(9 / points), 0.45 at least (from 45 points on)."""
    return max(min(1.0, (9 / max(points, 1)) ** 0.5), 0.45)


def chain_style(points: int) -> tuple[float, float]:
    """(line width, marker size) of a drawn chain of ``points`` points: (7, 4) for the mechanisms of a few bodies,
    thinner beyond 9 points (:func:`_thinning`), down to (3.1, 1.8): a 32-rod chain still shows every joint as
    a bead on a thin line, a 64-rod one (rods of about 3 pixels in the view) a thin line rather than a band of
    overlapping dots."""
    f = _thinning(points)
    return round(7.0 * f, 1), round(4.0 * f, 1)


def _scene_traces(run: dict, frame: int) -> list[dict]:
    chain = run["chain"][frame]
    xs, ys, zs = (list(v) for v in zip(*chain, strict=True))
    width, size = chain_style(len(chain))
    traces = [{"type": "scatter3d", "x": xs, "y": ys, "z": zs, "mode": "lines+markers", "name": run["label"],
               "legendgroup": run["label"], "line": {"color": run["color"], "width": width},
               "marker": {"size": size, "color": run["color"]}, "hoverinfo": "name"}]
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
    layout: dict[str, Any] = {
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
    """A small view (SVG) of a model's initial configuration: rods, triads and gravity. A side view with gravity
    pointing down; a configuration spread out flat in the horizontal plane (the spatial double pendulum and the
    chain of seed 000 start so: seen from the side, a straight line) is seen from above instead, marked "from
    above", gravity pointing into the page."""
    rot = screen_rotation(gravity)
    p = np.asarray(points, dtype=float).reshape(-1, 3) @ rot.T
    # lying flat (no height) and not along one line, which a side view shows as well
    spread = np.linalg.svd(p[:, :2] - p[:, :2].mean(axis=0), compute_uv=False) if len(p) > 1 else np.zeros(2)
    from_above = (gravity is not None and spread[0] > 1e-9 and np.ptp(p[:, 2]) <= 1e-9 * spread[0]
                  and spread[-1] > 1e-6 * spread[0])
    side = [0, 2] if np.ptp(p[:, 0]) + np.ptp(p[:, 2]) > 1e-9 else [1, 2]
    xy = p[:, [0, 1] if from_above else side]
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = max(float(np.max(hi - lo)), 1e-9)
    pad = 18.0
    scale = (size - 2 * pad) / span
    centre = (lo + hi) / 2

    def sx(v: np.ndarray) -> tuple[float, float]:
        return (size / 2 + (v[0] - centre[0]) * scale, size / 2 - (v[1] - centre[1]) * scale)

    chain, axes = _segments(point_names)
    thin = _thinning(len(chain))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">',
             f'<rect width="{size}" height="{size}" rx="8" fill="#f1f5f9"/>']
    coords = [sx(xy[k]) for k in chain]
    if len(coords) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(f'<polyline points="{path}" fill="none" stroke="#1f2937" stroke-width="{4 * thin:.1f}" '
                     'stroke-linecap="round" stroke-linejoin="round"/>')
    for anchor, tip, axis in axes:
        (x0, y0), (x1, y1) = sx(xy[anchor]), sx(xy[tip])
        parts.append(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="{AXIS_COLORS[axis]}" '
                     'stroke-width="3"/>')
    for x, y in coords:
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{3.5 * thin:.1f}" fill="#2563eb"/>')
    text = 'font-size="11" fill="#6b7280" font-family="sans-serif"'
    if from_above:  # gravity into the page: a circled cross
        parts.append('<circle cx="11" cy="16" r="6" fill="none" stroke="#6b7280" stroke-width="1.5"/>'
                     '<path d="M7,12 L15,20 M15,12 L7,20" stroke="#6b7280" stroke-width="1.5"/>'
                     f'<text x="20" y="20" {text}>g</text>'
                     f'<text x="{size - 6}" y="{size - 6}" text-anchor="end" {text}>from above</text>')
    elif gravity is not None:
        parts.append('<line x1="10" y1="8" x2="10" y2="30" stroke="#6b7280" stroke-width="2"/>'
                     '<polygon points="6,28 14,28 10,35" fill="#6b7280"/>'
                     f'<text x="15" y="20" {text}>g</text>')
    parts.append("</svg>")
    return "".join(parts)
