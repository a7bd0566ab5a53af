// The time zone comes from the browser: sign-up fills in the hidden field, and the profile
// offers the browser's zone in one click when the account's differs.
(function () {
  "use strict";
  let zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (error) {
    return;
  }
  if (!zone) return;
  const field = document.getElementById("id_time_zone");
  if (!field) return;
  if (field.type === "hidden") {
    field.value = zone;
    return;
  }
  if (field.value === zone) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "link-button";
  button.textContent = `Use this device's time zone (${zone})`;
  button.addEventListener("click", () => {
    field.value = zone;
    button.remove();
  });
  field.insertAdjacentElement("afterend", button);
})();
