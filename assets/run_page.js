/* Integrator Lab, run page: browser-side behaviour (Dash serves every file in assets/).
 *
 * - syncStep: the step input and its log10 slider follow each other.
 * - linkX: zooming the time axis of one chart zooms all of them (linked x-zoom).
 * - startScene: the 3D view's animation. While it plays, a requestAnimationFrame loop interpolates the frames of the
 *   `run-scene-data` store at real-time speed (times the chosen factor) and restyles the run traces of the
 *   `run-scene-3d` graph in place; a vertical time cursor on every chart follows it (about 8 updates per
 *   second), and clicking a chart moves the animation to that time.
 * State lives in window.integratorLab (one page, one browser tab): nothing is kept on the server.
 */
(function () {
  "use strict";

  /* The page's chart and 3D-view ids, defined once in app/layout.py and handed over as JSON in the data-ids
   * attribute of #run-page-ids (read when first needed: Dash renders the layout after this script runs). */
  let IDS = null;
  function ids() {
    if (!IDS) {
      const el = document.getElementById("run-page-ids");
      if (!el) return { charts: [] };
      IDS = JSON.parse(el.dataset.ids);
    }
    return IDS;
  }

  const IL = (window.integratorLab = window.integratorLab || {
    scene: null,
    time: 0,
    playing: false,
    speed: 1,
    lastTs: null,
    lastCursor: 0,
    frames: 0,
    fpsSince: 0,
    fps: null,
    loop: false,
    cursorInterval: 0, // ms between time-cursor updates of the charts while playing (0: every frame)
  });

  function graphDiv(id) {
    return document.querySelector("#" + id + " .js-plotly-plot");
  }

  function tMax() {
    const t = IL.scene && IL.scene.t;
    return t && t.length ? t[t.length - 1] : 0;
  }

  function lerp(a, b, w) {
    return [a[0] + (b[0] - a[0]) * w, a[1] + (b[1] - a[1]) * w, a[2] + (b[2] - a[2]) * w];
  }

  /* Restyle every run trace of the 3D view to the state at `time`. */
  function draw(time) {
    const s = IL.scene;
    const gd = graphDiv(ids().graph);
    if (!s || !s.runs || !s.runs.length || !gd || !gd.data) return false;
    const n = s.t.length;
    const f = n > 1 ? Math.min(Math.max(time / tMax(), 0), 1) * (n - 1) : 0;
    const i = Math.min(Math.floor(f), n - 1);
    const j = Math.min(i + 1, n - 1);
    const w = f - i;
    const xs = [], ys = [], zs = [], idx = [];
    let k = s.static;
    for (const run of s.runs) {
      const a = run.chain[i], b = run.chain[j];
      const pts = a.map((p, m) => lerp(p, b[m], w));
      xs.push(pts.map((p) => p[0]));
      ys.push(pts.map((p) => p[1]));
      zs.push(pts.map((p) => p[2]));
      idx.push(k++);
      run.axes.forEach((ax, m) => {
        const anchor = pts[ax[0]];
        const tip = lerp(run.tips[i][m], run.tips[j][m], w);
        xs.push([anchor[0], tip[0]]);
        ys.push([anchor[1], tip[1]]);
        zs.push([anchor[2], tip[2]]);
        idx.push(k++);
      });
    }
    if (k > gd.data.length) return false;
    window.Plotly.restyle(gd, { x: xs, y: ys, z: zs }, idx);
    const label = document.getElementById(ids().time);
    if (label) label.textContent = "t = " + time.toFixed(2) + " s";
    const scrub = document.getElementById(ids().scrub);
    if (scrub && document.activeElement !== scrub) scrub.value = String(Math.round((1000 * time) / (tMax() || 1)));
    return true;
  }

  /* A vertical line at `time` on every chart: a positioned element over the plot area, moved with the axis'
   * own linear-to-pixel map (no Plotly.relayout: redrawing five charts per frame would stall the animation). */
  function setCursor(time) {
    IL.cursor = time;
    for (const id of ids().charts) {
      const gd = graphDiv(id);
      const host = document.getElementById(id);
      if (!gd || !host) continue;
      let el = host.querySelector(".time-cursor");
      if (!el) {
        el = document.createElement("div");
        el.className = "time-cursor";
        host.appendChild(el);
      }
      const fl = gd._fullLayout;
      const xa = fl && fl.xaxis;
      const drawn = gd._fullData && gd._fullData.length && xa && xa.l2p && xa.visible !== false;
      const px = drawn ? xa.l2p(xa.type === "log" ? Math.log10(time) : time) : -1; // a log-time axis: l = log10 t
      if (!drawn || !(px >= 0 && px <= xa._length)) {
        el.style.display = "none";
        continue;
      }
      const offset = gd.getBoundingClientRect().left - host.getBoundingClientRect().left;
      el.style.display = "block";
      el.style.left = offset + fl._size.l + px + "px";
      el.style.top = fl._size.t + "px";
      el.style.height = fl._size.h + "px";
    }
  }

  function seek(time) {
    IL.time = Math.min(Math.max(time, 0), tMax());
    draw(IL.time);
    setCursor(IL.time);
  }

  function setPlaying(playing) {
    IL.playing = playing && !!(IL.scene && IL.scene.runs && IL.scene.runs.length);
    IL.lastTs = null;
    IL.frames = 0;
    IL.fpsSince = performance.now();
    const button = document.getElementById(ids().play);
    if (button) button.textContent = IL.playing ? "Pause" : "Play";
    if (IL.playing && !IL.loop) {
      IL.loop = true;
      window.requestAnimationFrame(tick);
    }
  }

  function tick(ts) {
    if (IL.playing) {
      if (IL.lastTs !== null) {
        IL.time += ((ts - IL.lastTs) / 1000) * IL.speed;
        if (IL.time > tMax()) IL.time = 0;
      }
      IL.lastTs = ts;
      if (draw(IL.time)) IL.frames += 1;
      if (ts - IL.lastCursor > IL.cursorInterval) {
        IL.lastCursor = ts;
        setCursor(IL.time);
      }
      const since = ts - IL.fpsSince;
      if (since >= 1000) {
        IL.fps = (1000 * IL.frames) / since;
        IL.frames = 0;
        IL.fpsSince = ts;
        const fps = document.getElementById(ids().fps);
        if (fps) fps.textContent = IL.fps.toFixed(0) + " fps";
      }
    }
    // frames only while playing: a paused view left open (a phone in a pocket) costs no CPU
    IL.loop = IL.playing;
    if (IL.loop) window.requestAnimationFrame(tick);
  }

  function wireControls() {
    const button = document.getElementById(ids().play);
    if (button && !button.dataset.ilWired) {
      button.dataset.ilWired = "1";
      button.addEventListener("click", () => setPlaying(!IL.playing));
    }
    const scrub = document.getElementById(ids().scrub);
    if (scrub && !scrub.dataset.ilWired) {
      scrub.dataset.ilWired = "1";
      scrub.addEventListener("input", () => {
        setPlaying(false);
        seek((Number(scrub.value) / 1000) * tMax());
      });
    }
    for (const id of ids().charts) {
      const gd = graphDiv(id);
      if (gd && gd.on && !gd.ilClick) {
        gd.ilClick = true;
        gd.on("plotly_click", (ev) => {
          const p = ev && ev.points && ev.points[0];
          if (p && typeof p.x === "number") seek(p.x);
        });
      }
    }
  }

  const nu = () => window.dash_clientside.no_update;

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    integratorLab: {
      syncStep: function (step, slider) {
        const trig = (window.dash_clientside.callback_context.triggered || [])[0];
        const which = trig ? trig.prop_id : "";
        if (which.startsWith("run-step-slider")) {
          if (typeof slider !== "number") return [nu(), nu()];
          return [Number(Math.pow(10, slider).toPrecision(3)), nu()];
        }
        if (typeof step === "number" && step > 0) {
          const v = Math.min(Math.max(Math.log10(step), -6), 0);
          if (typeof slider === "number" && Math.abs(Number(Math.pow(10, slider).toPrecision(3)) - step) < 1e-15) {
            return [nu(), nu()];
          }
          return [nu(), Math.round(v * 100) / 100];
        }
        return [nu(), nu()];
      },

      linkX: function () {
        const trig = (window.dash_clientside.callback_context.triggered || [])[0];
        if (!trig) return nu();
        const source = trig.prop_id.split(".")[0];
        const r = trig.value || {};
        let update = null;
        if (r["xaxis.range[0]"] !== undefined) update = [r["xaxis.range[0]"], r["xaxis.range[1]"]];
        else if (Array.isArray(r["xaxis.range"])) update = r["xaxis.range"];
        else if (r["xaxis.autorange"]) update = "auto";
        if (update === null) return nu();
        // a log-time chart's range is in log10 t: link in seconds, convert for each chart's own axis type
        const src = graphDiv(source);
        const srcLog = src && src.layout && src.layout.xaxis && src.layout.xaxis.type === "log";
        const secs = update === "auto" ? "auto" : update.map((v) => (srcLog ? Math.pow(10, v) : v));
        for (const id of ids().charts) {
          if (id === source) continue;
          const gd = graphDiv(id);
          if (!gd || !gd.layout || !gd.data || !gd.data.length) continue;
          const ax = gd.layout.xaxis || {};
          if (secs === "auto") {
            if (!ax.autorange) window.Plotly.relayout(gd, { "xaxis.autorange": true });
          } else {
            const want = ax.type === "log" ? secs.map((v) => Math.log10(Math.max(v, 1e-9))) : secs;
            const cur = ax.range || [];
            const same = cur.length === 2 && Math.abs(cur[0] - want[0]) < 1e-9 && Math.abs(cur[1] - want[1]) < 1e-9;
            if (!same || ax.autorange) window.Plotly.relayout(gd, { "xaxis.range": [want[0], want[1]] });
          }
        }
        if (typeof IL.cursor === "number") window.setTimeout(() => setCursor(IL.cursor), 50);
        return { source: source, range: secs };
      },

      startScene: function (scene) {
        IL.scene = scene && scene.runs ? Object.assign({}, scene, { static: scene.gravity && scene.runs.length ? 2 : 0 }) : null;
        // Controls and charts may render after this store: wire them now and again shortly after.
        wireControls();
        window.setTimeout(wireControls, 500);
        window.setTimeout(wireControls, 2000);
        if (IL.time > tMax()) IL.time = 0;
        window.setTimeout(() => {
          draw(IL.time);
          setCursor(IL.time);
        }, 0);
        return { runs: IL.scene ? IL.scene.runs.length : 0, frames: IL.scene ? IL.scene.t.length : 0 };
      },

      setSpeed: function (speed) {
        IL.speed = typeof speed === "number" && speed > 0 ? speed : 1;
        return IL.speed;
      },
    },
  });
})();
