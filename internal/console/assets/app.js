// Shows every <time datetime> in the browser's time zone. Without scripts
// the server's rendering (the operator's zone) stays.
document.querySelectorAll("time[datetime]").forEach(function (el) {
  var d = new Date(el.getAttribute("datetime"));
  if (isNaN(d)) { return; }
  el.title = el.textContent;
  el.textContent = d.toLocaleString(undefined, { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" });
});
