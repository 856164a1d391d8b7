// Lessons page: the arrow keys press Back / Next (not while typing in a field or moving a slider handle).
// Presses are queued and sent one at a time, each once the page shows the previous move, so none is lost
// when a teacher taps quickly (a press sent while the last one is still being applied would read the old step).
(() => {
  const queue = [];
  let busy = false;
  const position = () => { const el = document.getElementById('lessons-position'); return el ? el.textContent : ''; };
  const lesson = () => { const el = document.querySelector('#lessons-body .lesson-title'); return el ? el.textContent : ''; };
  function next() {
    if (busy || !queue.length) return;
    const button = document.getElementById(queue.shift());
    if (!button) { queue.length = 0; return; }
    busy = true;
    const before = position() + '|' + lesson();
    button.click();
    const started = performance.now();
    (function wait() {
      if (position() + '|' + lesson() !== before || performance.now() - started > 1500) {
        busy = false;
        scrollToStep();
        next();
      } else {
        requestAnimationFrame(wait);
      }
    })();
  }
  function scrollToStep() {  // a student's page (not presenter mode): bring the current step into view
    const at = document.getElementById('lessons-at');
    if (!at || at.classList.contains('presenter')) return;
    const body = document.getElementById('lessons-body');
    const m = body && at.className.match(/step-(\d+)/);
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
