// The create form shows only the options that apply: the move timer for real time, the
// deadline and missed-deadline choice for turn by turn, the target for target scoring.
// Without this script every option shows and the server ignores those that do not apply.
(function () {
  "use strict";
  const form = document.querySelector("form.table-form");
  if (!form) return;
  const parts = form.querySelectorAll("[data-shown-when]");

  function chosen(name) {
    const input = form.querySelector(`input[name="${name}"]:checked`);
    return input ? input.value : null;
  }

  function update() {
    parts.forEach((part) => {
      const [name, value] = part.dataset.shownWhen.split("=");
      part.hidden = chosen(name) !== value;
    });
  }

  form.addEventListener("change", update);
  update();
})();
