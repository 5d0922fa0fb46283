// Repeat visits without a network: in the built site (dist/, see scripts/build-dist.mjs) every
// page carries <meta name="attnscope-sw" content="sw.js">, and this registers that service
// worker. The development pages (www/) have no such meta and register nothing; neither does a
// page opened from disk or in a sandboxed iframe (no service workers there).
//
// The worker's install downloads every file of the site (a few MB), so it is registered only
// once `ready` settles, when the page's first result is on screen (or after WAIT_MS at most):
// on a first visit it must not share the network and the CPU with the model and the engine.
const WAIT_MS = 20000;

export function registerServiceWorker(ready = Promise.resolve()) {
  const meta = /** @type {HTMLMetaElement | null} */ (document.querySelector('meta[name="attnscope-sw"]'));
  if (!meta || !("serviceWorker" in navigator) || !/^https?:$/.test(location.protocol)) return;
  const register = () => {
    try {
      navigator.serviceWorker.register(new URL(meta.content, document.baseURI)).catch(() => {
        // Offline support is a bonus: the page works without it.
      });
    } catch {
      // An opaque origin (sandboxed iframe) throws synchronously; nothing to do.
    }
  };
  Promise.race([Promise.resolve(ready).catch(() => {}), new Promise((r) => setTimeout(r, WAIT_MS))]).then(register);
}
