// Copy buttons: a button with data-copy="ID" copies the value of the field
// with that id. The buttons are hidden in the HTML and shown here, so that
// without JavaScript the field (readonly, selectable) is all there is.
document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
  var field = document.getElementById(button.dataset.copy);
  if (!field) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    field.select();
    var done = function () { button.textContent = "Copied"; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });
});
