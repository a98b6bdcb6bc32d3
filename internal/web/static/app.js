// baton dashboard: small enhancements; every page works without them.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  // A long table gets a filter box that hides the rows not containing its
  // text.
  const placeholder = document.body.dataset.filter || "";
  for (const table of document.querySelectorAll("table.filterable")) {
    if (!table.tBodies[0] || table.tBodies[0].rows.length < 8) continue;
    const input = document.createElement("input");
    input.type = "search";
    input.className = "filter";
    input.placeholder = placeholder;
    input.setAttribute("aria-label", placeholder);
    table.before(input);
    input.addEventListener("input", () => {
      const want = input.value.trim().toLowerCase();
      for (const row of table.tBodies[0].rows) {
        row.classList.toggle("hidden", want !== "" && !row.textContent.toLowerCase().includes(want));
      }
    });
  }

  // "/" jumps to the search box, as in many tools.
  document.addEventListener("keydown", (e) => {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return;
    const box = document.getElementById("q") || document.getElementById("quick-search");
    if (box) { e.preventDefault(); box.focus(); }
  });

  // A page that is still changing (a running debate) reloads itself.
  const refresh = document.querySelector("[data-refresh]");
  if (refresh) setTimeout(() => location.reload(), Number(refresh.dataset.refresh) * 1000);

  // Times are shown in the server's zone; the tooltip gives the browser's.
  for (const t of document.querySelectorAll("time[datetime]")) {
    const d = new Date(t.getAttribute("datetime"));
    if (!isNaN(d)) t.title = d.toLocaleString();
  }
});
