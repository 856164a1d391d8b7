// Keyboard and screen-reader repairs of Dash 4's components that their props cannot make (every page).
// - dcc.Dropdown: its hidden focus proxy (aria-hidden, yet in the tab order) leaves the tab order and the trigger
//   button, which its label names, takes its place; typing while the open list has focus goes to its search box
//   (otherwise the first letters are lost on the selected option).
// - dcc.Slider: each thumb (role=slider) is named after its field's label; so is an input that a label cannot
//   point at (a pattern-matching id, a slider's number box).
// - dcc.RadioItems / Checklist: a listbox of options that each hold a focusable input (nested interactive
//   controls) becomes a named radiogroup (group) of the native inputs, which carry the semantics themselves.
(() => {
  const labelOf = (el) => {
    const holder = el.closest('[id]');
    const byFor = holder && document.querySelector(`label[for="${CSS.escape(holder.id)}"]`);
    if (byFor) return byFor.textContent.trim();
    const field = el.closest('.field, .lesson-step, .chart-option');
    const label = field && field.querySelector('label');
    return label ? label.textContent.trim() : '';
  };
  function repair(root) {
    root.querySelectorAll('.dash-dropdown-focus-target[tabindex="0"]').forEach((proxy) => {
      proxy.setAttribute('tabindex', '-1');
      const trigger = proxy.parentElement && proxy.parentElement.querySelector('button.dash-dropdown');
      if (trigger && !trigger.disabled) trigger.setAttribute('tabindex', '0');
    });
    // a dropdown's list is a real listbox of options (its popover): only RadioItems / Checklist lists change
    const inDropdown = (el) => el.closest('.dash-dropdown-options, .dash-dropdown-content');
    root.querySelectorAll('.dash-options-list[role="listbox"]').forEach((list) => {
      if (inDropdown(list) || !list.querySelector('input')) return;
      list.setAttribute('role', list.querySelector('input[type="radio"]') ? 'radiogroup' : 'group');
      const text = labelOf(list);
      if (text && !list.getAttribute('aria-label')) list.setAttribute('aria-label', text);
    });
    root.querySelectorAll('.dash-options-list label[role="option"], .dash-options-list label[aria-selected]')
      .forEach((option) => {
        if (inDropdown(option)) return;
        option.removeAttribute('role');
        option.removeAttribute('aria-selected');
      });
    // inputs whose label cannot point at them (pattern-matching ids, a slider's own number box): their field's
    root.querySelectorAll('input:not([type="hidden"]):not([aria-label]):not([aria-labelledby])').forEach((input) => {
      if (input.labels && input.labels.length) return;
      const text = labelOf(input);
      if (text) input.setAttribute('aria-label', input.closest('.dash-slider, .dash-range-slider, [class*="slider"]')
        && !input.closest('.field > label') ? `${text} (slider value)` : text);
    });
    root.querySelectorAll('[role="slider"]:not([aria-label]):not([aria-labelledby])').forEach((thumb) => {
      const text = labelOf(thumb);
      if (text) thumb.setAttribute('aria-label', text);
    });
  }
  new MutationObserver(() => repair(document)).observe(document.documentElement,
    {childList: true, subtree: true, attributes: true, attributeFilter: ['tabindex', 'disabled', 'role', 'aria-selected']});
  document.addEventListener('DOMContentLoaded', () => repair(document));
  window.addEventListener('keydown', (event) => {
    const list = event.target && event.target.closest && event.target.closest('.dash-dropdown-content');
    if (!list || event.key.length !== 1 || event.ctrlKey || event.metaKey || event.altKey) return;
    const search = list.querySelector('input.dash-dropdown-search');
    if (search && event.target !== search) {
      search.focus();  // the key's character is then typed into the search box
      event.stopPropagation();
    }
  }, true);
})();
