// The live character counter of the Workbench's text fields (issue 19): a text over its limit
// is not saved, so the counter says how many characters to cut while the person types. The
// count is of what the agent receives: every character, markup and mention markers too
// (code points, as the server counts them).
"use strict";

function describeCount(length, limit) {
  const shown = `${length.toLocaleString("en")} / ${limit.toLocaleString("en")} characters`;
  if (length <= limit) {
    return shown;
  }
  const over = length - limit;
  return `${shown}: cut ${over.toLocaleString("en")} character${over === 1 ? "" : "s"}`;
}

function watch(field) {
  const limit = Number(field.dataset.limit);
  const output = document.getElementById(`${field.id}-count`);
  const update = () => {
    const length = Array.from(field.value.replace(/\r\n/g, "\n").trim()).length;
    output.textContent = describeCount(length, limit);
    output.classList.toggle("over", length > limit);
  };
  field.addEventListener("input", update);
  update();
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("textarea[data-limit]").forEach(watch);
});
