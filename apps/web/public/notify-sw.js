// PhoneLoop's service worker for Web Push: shows each notification the API sends (a gate waiting, a takeover asked)
// and opens its page on a click. The message carries a link only; the page asks for sign-in and the answer is given
// there — nothing here can approve.
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { title: event.data ? event.data.text() : "PhoneLoop" };
  }
  const title = data.title || "PhoneLoop needs you";
  const body = data.gate && data.gate.question ? data.gate.question : "";
  event.waitUntil(self.registration.showNotification(title.slice(0, 120), { body, tag: data.gate ? data.gate.id : data.id, data: { url: data.url || "/" } }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data && event.notification.data.url ? event.notification.data.url : "/", self.location.origin);
  // Only the web app's own pages open from here.
  const target = url.origin === self.location.origin ? url.href : self.location.origin;
  event.waitUntil(self.clients.openWindow(target));
});
