// "Without a server": call <koder-mcp-elicitation>.elicit(...) directly with each request shape,
// and the language picker. No build step, no dependencies: this file is served as is.

const TAG = 'koder-mcp-elicitation';
const el = document.querySelector(TAG);
const requestBox = document.getElementById('local-request');
const resultBox = document.getElementById('local-result');
const eventList = document.getElementById('local-events');
const langSelect = document.getElementById('lang');

const SAMPLES = {
  // The Koder envelope: schema / title / description.
  envelope: () => ({
    type: 'elicitation/request',
    id: 'e_123',
    schema: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'Your city' },
        temperature_unit: { type: 'string', enum: ['C', 'F'] },
      },
      required: ['city'],
    },
    title: 'Weather lookup needs your input',
    description: 'The weather tool needs your city.',
  }),
  // Bare MCP params, URL mode (2025-11-25, with elicitationId).
  url: () => ({
    mode: 'url',
    elicitationId: `local-url-${Date.now()}`,
    url: 'https://example.com/connect?session=demo',
    message: 'Connect your Example account. The page opens in a new tab; nothing typed there passes through this client.',
  }),
  // A URLElicitationRequiredError (-32042) response: two URL-mode elicitations, shown one after
  // another with el.elicitRequired(error).
  required: () => {
    const stamp = Date.now();
    return {
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32042,
        message: 'This request requires more information.',
        data: {
          elicitations: [
            { mode: 'url', elicitationId: `local-files-${stamp}`, url: 'https://files.example.com/connect', message: 'Connect Example Files.' },
            { mode: 'url', elicitationId: `local-mail-${stamp}`, url: 'https://mail.example.com/connect', message: 'Connect Example Mail.' },
          ],
        },
      },
    };
  },
  // A whole JSON-RPC request, as it arrives on the wire.
  jsonrpc: () => ({
    jsonrpc: '2.0',
    id: 42,
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: 'Please provide your contact information',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Your full name' },
          email: { type: 'string', format: 'email', description: 'Your email address' },
          age: { type: 'number', minimum: 18, description: 'Your age' },
        },
        required: ['name', 'email'],
      },
    },
  }),
};

const show = (box, value) => { box.textContent = JSON.stringify(value, null, 2); };

async function runSample(kind) {
  const request = SAMPLES[kind]();
  show(requestBox, request);
  resultBox.textContent = 'Waiting for the user…';
  resultBox.dataset.state = 'running';
  await customElements.whenDefined(TAG);
  if (kind === 'required') return runRequired(request);
  try {
    const result = await el.elicit(request);
    show(resultBox, result);
    resultBox.dataset.state = 'done';
    // A real server would send notifications/elicitation/complete once the user finished on its page.
    // Here, pretend it does so a few seconds after consent, to show the waiting state ending.
    if (request.mode === 'url' && result.action === 'accept') {
      setTimeout(() => {
        const known = el.complete(request.elicitationId);
        resultBox.textContent += `\n\n// 3 s later: el.complete(${JSON.stringify(request.elicitationId)}) → ${known}`;
      }, 3000);
    }
  } catch (error) {
    show(resultBox, { rejected: error.name, code: error.code, message: error.message });
    resultBox.dataset.state = 'error';
  }
}

// -32042: nothing sends notifications/elicitation/complete here; "I've finished" in the wait view
// completes each one, and the result says whether to retry the original request.
async function runRequired(error) {
  try {
    show(resultBox, await el.elicitRequired(error));
    resultBox.dataset.state = 'done';
  } catch (failure) {
    show(resultBox, { rejected: failure.name, code: failure.code, message: failure.message });
    resultBox.dataset.state = 'error';
  }
}

for (const button of document.querySelectorAll('[data-sample]')) {
  button.addEventListener('click', () => { runSample(button.dataset.sample); });
}

// Every event the element fires, for every call (from the server or from the buttons above).
for (const type of ['accept', 'reject', 'cancel', 'timeout', 'complete', 'invalid']) {
  el.addEventListener(type, (event) => {
    const { id, mode, source, reason, reply, error, url, elicitationId } = event.detail ?? {};
    const item = document.createElement('li');
    const name = document.createElement('strong');
    name.textContent = type;
    const code = document.createElement('code');
    code.textContent = JSON.stringify({ id, mode, source, reason, error, url, elicitationId, reply });
    item.append(name, ' ', code);
    eventList.prepend(item);
    while (eventList.children.length > 20) eventList.lastElementChild.remove();
  });
}

// Language: sets the element's lang attribute. en-US and pt-BR ship; Spanish does not, so this
// page registers it from es.ftl, the way a host adds any language (see the README).
import('/dist/koder-mcp-elicitation.js')
  .then(async ({ ready, registerTranslation }) => {
    const response = await fetch('/es.ftl');
    if (!response.ok) throw new Error(`es.ftl: HTTP ${response.status}`);
    const messages = await response.text();
    await ready; // the import does not wait for the wasm; registerTranslation needs it
    registerTranslation('es', messages);
  })
  .catch((error) => {
    console.error('Spanish was not registered:', error);
    langSelect.querySelector('option[value="es"]')?.remove();
  });
if (el.hasAttribute('lang')) langSelect.value = el.getAttribute('lang');
langSelect.addEventListener('change', () => { el.setAttribute('lang', langSelect.value); });
