// Citation chips open exactly the chunk they name; Escape closes the side view.
//
// Chainlit 2.11+ opens the element side view by itself whenever display="side" elements arrive or a
// thread is loaded, listing every side element of the thread under the title of the last one
// (Chainlit issue #2979; fix proposed in PR #2982). For citations that shows a chunk other than the
// one the title names. This script closes a side view that the user did not open by clicking a chip,
// or one that lists more than one element; a click on a chip still opens that chip's chunk alone.
(() => {
  let requested = null; // the name of the chip the user clicked last

  document.addEventListener("click", (event) => {
    const chip = event.target.closest && event.target.closest(".element-link");
    if (chip) requested = chip.textContent.trim();
  }, true);

  const check = () => {
    const title = document.getElementById("side-view-title");
    const content = document.getElementById("side-view-content");
    if (!title || !content) return;
    const shown = title.textContent.trim();
    const many = content.children.length > 1;
    if (many || shown !== requested) {
      const close = title.querySelector("button");
      if (close) close.click();
      requested = null;
    }
  };

  new MutationObserver(check).observe(document.documentElement, { childList: true, subtree: true });

  // Escape closes the side view (a citation, a step's complete JSON) as it closes dialogs.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    const close = document.querySelector("#side-view-title button");
    if (close) {
      close.click();
      requested = null;
    }
  });
})();
