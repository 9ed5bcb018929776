// Shows every <time datetime> in the browser's time zone. Without scripts
// the server's rendering (the operator's zone) stays.
document.querySelectorAll("time[datetime]").forEach(function (el) {
  var d = new Date(el.getAttribute("datetime"));
  if (isNaN(d)) { return; }
  el.title = el.textContent;
  el.textContent = d.toLocaleString(undefined, { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" });
});

// Narrow screens show each table row as a card (style.css): every cell
// is labelled with its column's header, so that no column (State,
// Message) lies off-screen behind a sideways scroll.
document.querySelectorAll("table").forEach(function (table) {
  var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) { return th.textContent.trim(); });
  table.querySelectorAll("tbody tr").forEach(function (tr) {
    var col = 0;
    Array.prototype.forEach.call(tr.cells, function (td) {
      if (td.colSpan === 1 && heads[col]) { td.setAttribute("data-label", heads[col]); }
      col += td.colSpan;
    });
  });
  table.classList.add("cards");
});
