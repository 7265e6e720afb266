(function () {
  var box = document.getElementById("filter");
  var table = document.getElementById("values-table");
  if (!box || !table) { return; }
  box.addEventListener("input", function () {
    var q = box.value.toLowerCase();
    var rows = table.tBodies[0].rows;
    for (var i = 0; i < rows.length; i++) {
      rows[i].style.display = rows[i].textContent.toLowerCase().indexOf(q) === -1 ? "none" : "";
    }
  });
})();
