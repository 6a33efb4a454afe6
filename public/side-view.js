// Citation chips open exactly the chunk they name; inline [n] markers open it too and preview it on hover, the quoted
// sentence marked; Escape
// closes the side view; icon buttons get names; a thread link opened signed out opens that thread after sign-in; a
// file of an upload not yet started can be cancelled from its line; toasts that show internals are reworded.
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

  // Icon-only buttons get an accessible name (a screen reader otherwise reads "button"): by their id, else by
  // the icon they show; Plotly's mode-bar links by the tooltip they already carry.
  const NAMES = {
    "sidebar-trigger-button": "Show or hide the conversation list", "search-chats-button": "Search conversations",
    "new-chat-button": "New conversation", "upload-button": "Attach files", "chat-submit": "Send message",
    "theme-toggle": "Switch light or dark theme", "stop-button": "Stop the answer",
  };
  const ICONS = {
    "copy": "Copy", "check": "Copied", "moon": "Switch to the dark theme", "sun": "Switch to the light theme",
    "arrow-down": "Scroll to the latest message", "ellipsis": "Conversation options", "x": "Close",
    "arrow-left": "Back", "thumbs-up": "Helpful", "thumbs-down": "Not helpful", "pencil": "Edit message",
    "square": "Stop the answer", "panel-left": "Show or hide the conversation list", "search": "Search conversations",
    "square-pen": "New conversation", "paperclip": "Attach files", "arrow-up": "Send message",
    "chevron-down": "Show or hide", "chevron-up": "Show or hide", "download": "Download", "settings": "Settings",
  };
  const label = () => {
    for (const el of document.querySelectorAll("button:not([aria-label]), a.modebar-btn:not([aria-label])")) {
      if (el.innerText.trim() || el.getAttribute("aria-labelledby")) continue;
      if (el.dataset.title) { el.setAttribute("aria-label", el.dataset.title); continue; }
      const icon = [...(el.querySelector("svg")?.classList || [])].find((c) => c.startsWith("lucide-"));
      const name = NAMES[el.id] || (icon && ICONS[icon.slice(7)]) || (icon && icon.slice(7).replace(/-/g, " "))
        || (el.closest("[data-step-type='user_message']") ? "Edit message" : null);  // its icon has no class
      if (name) el.setAttribute("aria-label", name);
    }
  };
  new MutationObserver(label).observe(document.documentElement, { childList: true, subtree: true });

  // A thread link opened signed out goes to the login page, and after sign-in Chainlit lands on a new chat:
  // remember the thread asked for and open it once signed in.
  const RETURN = "assess-return-to";
  let lastPath = location.pathname;
  const follow = () => {
    const path = location.pathname;
    if (path === lastPath) return;
    if (path === "/login" && lastPath.startsWith("/thread/")) sessionStorage.setItem(RETURN, lastPath);
    const back = sessionStorage.getItem(RETURN);
    if (lastPath === "/login" && path === "/" && back) {
      sessionStorage.removeItem(RETURN);
      location.replace(back);
    }
    lastPath = path;
  };
  if (location.pathname === "/login" && document.referrer) {  // a first visit redirected before this script ran
    const from = new URL(document.referrer, location.href);
    if (from.origin === location.origin && from.pathname.startsWith("/thread/")) sessionStorage.setItem(RETURN, from.pathname);
  }
  setInterval(follow, 200);

  // Inline citation markers: the answer writes each [n] as a link to #cite-n whose title is a preview of the chunk
  // (chat_app/rendering.linked_markers). A click opens that chunk as its chip under Sources does; resting the
  // pointer on it, or focusing it, shows the preview. The title moves to data-preview so that the browser's own
  // tooltip does not show it twice, and the preview is the marker's accessible description.
  const MARKER = 'a[href^="#cite-"]';
  const chipFor = (marker) => {
    const n = marker.getAttribute("href").slice("#cite-".length);
    const message = marker.closest("[data-step-type]") || document;
    return [...message.querySelectorAll(".element-link")].find((c) => c.textContent.trim().startsWith(`[${n}] `));
  };
  document.addEventListener("click", (event) => {
    const marker = event.target.closest && event.target.closest(MARKER);
    if (!marker) return;
    event.preventDefault();
    event.stopPropagation();
    const chip = chipFor(marker);
    if (chip) chip.click();
  }, true);

  let preview = null;
  const showPreview = (event) => {
    const marker = event.target.closest && event.target.closest(MARKER);
    if (!marker) return;
    if (marker.title) {
      marker.dataset.preview = marker.title;
      marker.removeAttribute("title");
    }
    if (!preview) {
      preview = document.createElement("div");
      preview.id = "citation-preview";
      preview.setAttribute("role", "tooltip");
      document.body.appendChild(preview);
    }
    const chip = chipFor(marker);
    preview.textContent = "";
    const source = document.createElement("strong");
    source.textContent = chip ? chip.textContent.trim() : marker.textContent.trim();
    preview.append(source, document.createElement("br"));
    // the words the answer quotes stand between « and » (chat_app/rendering.preview): marked, the rest as context
    (marker.dataset.preview || "").split(/(«[^»]*»)/).forEach((piece) => {
      if (piece.startsWith("«") && piece.endsWith("»")) {
        const mark = document.createElement("mark");
        mark.textContent = piece.slice(1, -1);
        preview.append(mark);
      } else if (piece) {
        preview.append(piece);
      }
    });
    marker.setAttribute("aria-describedby", "citation-preview");
    const box = marker.getBoundingClientRect();
    preview.style.left = `${Math.max(8, Math.min(box.left, window.innerWidth - 368))}px`;
    preview.style.top = `${box.bottom + 6}px`;
    preview.hidden = false;
  };
  const hidePreview = (event) => {
    if (preview && event.target.closest && event.target.closest(MARKER)) preview.hidden = true;
  };
  document.addEventListener("mouseover", showPreview);
  document.addEventListener("focusin", showPreview);
  document.addEventListener("mouseout", hidePreview);
  document.addEventListener("focusout", hidePreview);

  // Chainlit's toasts that show internals: the upload picker's refusal lists MIME types (react-dropzone's message),
  // a failed sign-in shows the error key. Each is reworded when it appears (the toast is not re-rendered after).
  const TOASTS = [
    [/^File type must be /, "This file type cannot be attached: attach knowledge documents (.md, .txt, .html, .pdf, " +
      ".docx) or device configurations (.cfg, .conf, .config, .txt, .log)."],
    [/credentialssignin/i, "Sign-in failed: check the username and password."],
  ];
  const reword = () => {
    for (const toast of document.querySelectorAll("[data-sonner-toast] [data-title]")) {
      const found = TOASTS.find(([pattern]) => pattern.test(toast.textContent));
      if (found && toast.textContent !== found[1]) toast.textContent = found[1];
    }
  };
  new MutationObserver(reword).observe(document.documentElement, { childList: true, subtree: true });

  // A file of an upload not yet started carries a "cancel" link (chat_app/uploads.Progress): a click asks the server
  // to leave that file out; the Uploads step then shows "cancel requested" and the results say what was done.
  const CANCEL = 'a[href^="#cancel-upload-"]';
  document.addEventListener("click", async (event) => {
    const link = event.target.closest && event.target.closest(CANCEL);
    if (!link) return;
    event.preventDefault();
    event.stopPropagation();
    if (link.getAttribute("aria-disabled") === "true") return;
    link.setAttribute("aria-disabled", "true");
    link.textContent = "cancelling…";
    try {
      const response = await fetch("/assess/uploads/cancel", {
        method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ token: link.getAttribute("href").slice("#cancel-upload-".length) }),
      });
      const { state } = await response.json();
      link.textContent = state === "cancel requested" ? "cancel requested" : `not cancelled (${state})`;
    } catch (error) {
      link.textContent = "could not cancel";
    }
  }, true);

  // Escape closes the side view (a citation, a step's complete JSON) as it closes dialogs, and a citation preview.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    if (preview) preview.hidden = true;
    const close = document.querySelector("#side-view-title button");
    if (close) {
      close.click();
      requested = null;
    }
  });
})();
