// Lessons page: the arrow keys press Back / Next (not while typing in a field or moving a slider handle).
// Presses are queued and sent one at a time, each once the page shows the previous move, so none is lost
// when a teacher taps quickly (a press sent while the last one is still being applied would read the old step,
// and Dash would merge the two clicks into one move).
(() => {
  const queue = [];
  let busy = false;
  const PATIENCE_MS = 10000;  // a page that never shows a move still takes keys after this long
  const position = () => { const el = document.getElementById('lessons-position'); return el ? el.textContent : ''; };
  const at = () => { const el = document.getElementById('lessons-at'); return el ? el.className : ''; };
  // a press that moves nowhere (Next on the last lesson's last step, Back on the first lesson's first step) changes
  // nothing on the page, so it is not waited for
  function movesNowhere(id) {
    const m = position().match(/Step (\d+) of (\d+)/);
    const tabs = document.querySelectorAll('.lesson-tab');
    const el = document.getElementById('lessons-at');
    if (!m || !tabs.length || !el) return false;
    const edge = tabs[id === 'lessons-next' ? tabs.length - 1 : 0];
    let lesson = null;
    try { lesson = JSON.parse(edge.id).index; } catch (e) { return false; }
    return el.classList.contains('for-' + lesson) && (id === 'lessons-next' ? m[1] === m[2] : m[1] === '1');
  }
  function next() {
    if (busy || !queue.length) return;
    const id = queue.shift();
    const button = document.getElementById(id);
    if (!button) { queue.length = 0; return; }
    if (movesNowhere(id)) { next(); return; }
    busy = true;
    const before = position() + '|' + at();
    button.click();
    const started = performance.now();
    (function wait() {
      if (position() + '|' + at() !== before || performance.now() - started > PATIENCE_MS) {
        busy = false;
        scrollToStep();
        next();
      } else {
        requestAnimationFrame(wait);
      }
    })();
  }
  function scrollToStep() {  // a student's page (not presenter mode): bring the current step into view
    const el = document.getElementById('lessons-at');
    if (!el || el.classList.contains('presenter')) return;
    const body = document.getElementById('lessons-body');
    const m = body && el.className.match(/step-(\d+)/);
    const step = m && body.children[Number(m[1])];
    if (step) step.scrollIntoView({behavior: 'smooth', block: 'nearest'});
  }
  document.addEventListener('keydown', (event) => {
    if (!document.getElementById('lessons-root')) return;
    const target = event.target;
    if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)
        || (target.getAttribute && target.getAttribute('role') === 'slider'))) return;
    const id = event.key === 'ArrowRight' ? 'lessons-next' : event.key === 'ArrowLeft' ? 'lessons-prev' : null;
    if (!id) return;
    event.preventDefault();
    queue.push(id);
    next();
  });
})();

// The lessons page's browser callbacks (app/pages/lessons.py says when each runs). A callback that leaves the
// body as it is throws PreventUpdate rather than returning no_update: Dash's renderer still sends an element an
// update with no props for a no_update, and that update hid new children written just before it.
(() => {
  const dc = () => window.dash_clientside;
  const unchanged = () => { throw dc().PreventUpdate; };
  // the first step of the body on the screen: its lesson (data-lesson) and which computed demo it shows
  // (data-shows, "" for a placeholder)
  const onScreen = () => { const el = document.querySelector('#lessons-body > [data-lesson]'); return el ? el.dataset : null; };
  // the server's rendering, if it is of the lesson and "try it" value the page is at (null: the lesson's default)
  const renderingOf = (rendered, lesson, value, holder) => {
    const want = value === null || value === undefined ? holder && holder.default : value;
    return rendered && holder && rendered.lesson === lesson && rendered.value === want ? rendered : null;
  };
  // app/pages/lessons.py at_class: the classes the style sheet reads
  const atClass = (presenter, step, lesson) =>
    (presenter ? 'lessons-at presenter' : 'lessons-at') + ' step-' + step + ' for-' + lesson;
  const counter = (step, sizes, lesson) => 'Step ' + (step + 1) + ' of ' + sizes[lesson];

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lessons: {
      // Where a click of a lesson tab, Back, Next or "Run the demo" takes the page: [lesson, step, try-it value]
      // (null: the new lesson's default), or no_update (these outputs are stores: nothing is drawn from them).
      // Every input that fired is read, not only the first (callback_context.triggered_id): a new body's "Run the
      // demo" button (0 clicks) fires this callback when the body is drawn, and Dash merges that call with a
      // pending click of Next into one, in either order. Reading only the first lost the key press (9 runs in 60,
      // keys ten times a second beside three CPU-bound processes).
      move: function (tabs, prev, next, go, lesson, step, sizes) {
        const nu = dc().no_update;
        const fired = (dc().callback_context.triggered || []).map((t) => t.prop_id);
        const ids = Object.keys(sizes);
        const i = Math.max(ids.indexOf(lesson), 0);
        for (const p of fired) {
          if (p.startsWith('{')) {
            const tab = JSON.parse(p.slice(0, p.lastIndexOf('}') + 1)).index;
            return tab !== lesson ? [tab, 0, null] : [nu, 0, nu];
          }
          if (p === 'lessons-next.n_clicks') {
            if (step + 1 < sizes[ids[i]]) return [nu, step + 1, nu];
            return i + 1 < ids.length ? [ids[i + 1], 0, null] : [nu, nu, nu];
          }
          if (p === 'lessons-prev.n_clicks') {
            if (step > 0) return [nu, step - 1, nu];
            return i > 0 ? [ids[i - 1], sizes[ids[i - 1]] - 1, null] : [nu, nu, nu];
          }
          if (p === 'lessons-go.n_clicks' && go) return [nu, 1, nu];
        }
        return [nu, nu, nu];
      },

      // the step, the counter and the presenter button's label; the address follows (replaced, not pushed)
      view: function (step, presenter, shown, lesson, sizes) {
        const query = '?lesson=' + encodeURIComponent(lesson) + '&step=' + step + (presenter ? '&present=1' : '');
        if (window.location.search !== query) window.history.replaceState(window.history.state, '', query);
        return [atClass(presenter, step, lesson), counter(step, sizes, lesson),
                presenter ? 'Leave presenter mode' : 'Presenter mode'];
      },

      // a new lesson: its steps (the server's rendering if it is here, else the placeholder), with the step and
      // the counter; nothing if the body already holds this lesson
      open: function (lesson, step, presenter, sizes, placeholders, rendered, value) {
        const holder = placeholders[lesson];
        const shown = onScreen();
        if (!holder || (shown && shown.lesson === lesson)) unchanged();
        const ready = renderingOf(rendered, lesson, value, holder);
        return [atClass(presenter, step, lesson), counter(step, sizes, lesson), ready ? ready.body : holder.body,
                lesson];
      },

      // the server's rendering, if it is of the lesson and value the page is at; an opened "Reveal the answer"
      // stays open when the same lesson is redrawn
      show: function (rendered, lesson, value, placeholders) {
        const ready = renderingOf(rendered, lesson, value, placeholders[lesson]);
        if (!ready) unchanged();
        const shown = onScreen();
        const reveal = document.getElementById('lessons-reveal');
        if (!(reveal && reveal.open && shown && shown.lesson === lesson)) return ready.body;
        const steps = JSON.parse(JSON.stringify(ready.body));
        const visit = (c) => {
          if (!c || typeof c !== 'object') return;
          if (Array.isArray(c)) { c.forEach(visit); return; }
          if (c.props) {
            if (c.props.id === 'lessons-reveal') c.props.open = true;
            visit(c.props.children);
          }
        };
        visit(steps);
        return steps;
      },

      // the screen shows the lesson the page is at, and its computed demo once there is one
      watch: function (n, rendered, lesson, value, placeholders) {
        const holder = placeholders[lesson];
        const shown = onScreen();
        if (!holder || !shown) unchanged();
        const ready = renderingOf(rendered, lesson, value, holder);
        const computed = ready && ready.shows ? ready : null;
        if (shown.lesson !== lesson) return computed ? computed.body : holder.body;
        if (computed && shown.shows !== computed.shows) return computed.body;
        unchanged();
      },
    },
  });
})();
