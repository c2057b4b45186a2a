/* judgekit report: filter the per-task table, open or close every detail. No network. */
(function () {
  "use strict";
  var filter = document.getElementById("filter");
  var status = document.getElementById("status");
  function apply() {
    var text = filter ? filter.value.trim().toLowerCase() : "";
    var want = status ? status.value : "";
    var rows = document.querySelectorAll("table.tasks tr.result, table.tasks tr.detail");
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var ok = (!text || (row.getAttribute("data-text") || "").indexOf(text) !== -1) &&
               (!want || row.getAttribute("data-status") === want);
      row.classList.toggle("hidden", !ok);
    }
  }
  function setAll(open) {
    var all = document.querySelectorAll("table.tasks details, .warnings details");
    for (var i = 0; i < all.length; i++) { all[i].open = open; }
  }
  if (filter) { filter.addEventListener("input", apply); }
  if (status) { status.addEventListener("change", apply); }
  var expand = document.getElementById("expand");
  var collapse = document.getElementById("collapse");
  if (expand) { expand.addEventListener("click", function () { setAll(true); }); }
  if (collapse) { collapse.addEventListener("click", function () { setAll(false); }); }
  window.addEventListener("beforeprint", function () {
    var w = document.querySelectorAll(".warnings details");
    for (var i = 0; i < w.length; i++) { w[i].open = true; }
  });
  document.documentElement.setAttribute("data-report-ready", "yes");
})();
