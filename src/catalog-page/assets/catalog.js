// The catalog page's one script, a progressive enhancement: the page works without it (the
// search form asks the server). It adds the copy buttons (hidden in the HTML, since without
// script they could do nothing) and filters the listed entries as one types. No inline code
// anywhere: the page's CSP is script-src 'self'.
'use strict';
(() => {
  const input = document.getElementById('q');
  const count = document.getElementById('count');
  const noMatch = document.getElementById('no-match');
  const entries = Array.from(document.querySelectorAll('li.entry'));
  const initialCount = count ? count.textContent : '';

  if (input && count) {
    input.addEventListener('input', () => {
      const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      let shown = 0;
      for (const li of entries) {
        const text = li.getAttribute('data-search') || '';
        const match = words.every((w) => text.includes(w));
        li.hidden = !match;
        if (match) shown++;
      }
      count.textContent = words.length ? `${shown} of ${entries.length} listed ${entries.length === 1 ? 'endpoint' : 'endpoints'} match` : initialCount;
      if (noMatch) noMatch.hidden = shown > 0 || entries.length === 0;
    });
  }

  const label = (button, text) => {
    button.textContent = text;
    setTimeout(() => (button.textContent = 'Copy'), 2000);
  };
  for (const button of document.querySelectorAll('button.copy')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const pre = document.getElementById(button.getAttribute('data-copy'));
      if (!pre) return;
      try {
        await navigator.clipboard.writeText(pre.textContent);
        label(button, 'Copied');
      } catch {
        // No clipboard (an insecure origin, a refused permission): select the text instead.
        const range = document.createRange();
        range.selectNodeContents(pre);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        label(button, 'Selected: press Ctrl+C');
      }
    });
  }
})();
