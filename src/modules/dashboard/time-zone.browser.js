// The channel form's quiet-hours time zone, filled with the browser's own when it is empty (a new channel),
// so most people never type it. Only a name the server lists (the field's suggestions) is filled in: the
// server refuses any other, and a browser may still call a zone by an older name (Asia/Calcutta).
(() => {
  const field = document.getElementById("quietTimeZone");
  if (field?.value !== "") return; // no such field, or the channel already has a zone
  let zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    return;
  }
  const known = field.list ? [...field.list.options].some((option) => option.value === zone) : false;
  if (known) field.value = zone;
})();
