// Repeat visits without a network: in the built site (dist/, see scripts/build-dist.mjs) every
// page carries <meta name="attnscope-sw" content="sw.js">, and this registers that service
// worker. The development pages (www/) have no such meta and register nothing; neither does a
// page opened from disk or in a sandboxed iframe (no service workers there).
export function registerServiceWorker() {
  const meta = document.querySelector('meta[name="attnscope-sw"]');
  if (!meta || !("serviceWorker" in navigator) || !/^https?:$/.test(location.protocol)) return;
  try {
    navigator.serviceWorker.register(new URL(meta.content, document.baseURI)).catch(() => {
      // Offline support is a bonus: the page works without it.
    });
  } catch {
    // An opaque origin (sandboxed iframe) throws synchronously; nothing to do.
  }
}
