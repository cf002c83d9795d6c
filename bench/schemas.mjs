// The three schemas both implementations render, shared by the Node driver and the bench pages.
//
//   weather  the seed's 2-field form (city required string, temperature_unit enum C/F)
//   kinds13  13 fields, one per kind the component renders, each with a default
//   wide100  100 flat fields cycling through the flat kinds (100 is the contract's maximum)
//
// `peerUi` is the rjsf uiSchema that makes the peer render the same controls ours picks by itself
// (radios for <= 5 options, checkboxes for a multi select, a textarea for format "textarea"), and
// autofocuses the first field, since "open" means "first field focused" for both.
// `keyField` is a required text field used for keystroke latency: "" is invalid, "Lisbon" valid.

export const weather = {
  message: 'Weather lookup needs your input',
  requestedSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', title: 'City' },
      temperature_unit: { type: 'string', title: 'Unit', enum: ['C', 'F'] },
    },
    required: ['city'],
  },
};

const kindSpecs = [
  ['name', { type: 'string', title: 'Name', minLength: 1, maxLength: 80, default: 'Ada' }],
  ['email', { type: 'string', title: 'Email', format: 'email', default: 'ada@example.com' }],
  ['website', { type: 'string', title: 'Website', format: 'uri', default: 'https://example.com' }],
  ['birthday', { type: 'string', title: 'Birthday', format: 'date', default: '1990-12-10' }],
  ['meeting', { type: 'string', title: 'Meeting', format: 'date-time', default: '2026-01-02T10:30:00Z' }],
  ['notes', { type: 'string', title: 'Notes', format: 'textarea', default: 'Line one' }],
  ['age', { type: 'integer', title: 'Age', minimum: 0, maximum: 150, default: 36 }],
  ['ratio', { type: 'number', title: 'Ratio', minimum: 0, maximum: 1, default: 0.5 }],
  ['subscribe', { type: 'boolean', title: 'Subscribe', default: true }],
  ['unit', { type: 'string', title: 'Unit', enum: ['C', 'F', 'K'], default: 'C' }],
  [
    'country',
    {
      type: 'string',
      title: 'Country',
      oneOf: ['PT', 'BR', 'US', 'DE', 'FR', 'JP', 'IN', 'ES'].map((c) => ({ const: c, title: `Country ${c}` })),
      default: 'PT',
    },
  ],
  [
    'toppings',
    {
      type: 'array',
      title: 'Toppings',
      items: { type: 'string', enum: ['cheese', 'ham', 'olives', 'basil'] },
      uniqueItems: true,
      default: ['cheese'],
    },
  ],
  ['tags', { type: 'array', title: 'Tags', items: { type: 'string' }, default: ['a', 'b'] }],
];

// The nested object (an extension) is the last kind.
const nested = [
  'address',
  {
    type: 'object',
    title: 'Address',
    properties: {
      street: { type: 'string', title: 'Street', default: 'Rua A' },
      zip: { type: 'string', title: 'Zip', pattern: '^[0-9]{4}-[0-9]{3}$', default: '1000-001' },
    },
  },
];

function peerUiFor(schema) {
  if (schema.format === 'textarea') return { 'ui:widget': 'textarea' };
  if (schema.type === 'string' && Array.isArray(schema.enum) && schema.enum.length <= 5) return { 'ui:widget': 'radio' };
  if (schema.type === 'array' && schema.items?.enum) return { 'ui:widget': 'checkboxes' };
  return undefined;
}

function buildUi(properties) {
  const ui = {};
  let first = true;
  for (const [key, schema] of Object.entries(properties)) {
    const entry = { ...(peerUiFor(schema) || {}) };
    if (first) entry['ui:autofocus'] = true;
    first = false;
    if (Object.keys(entry).length) ui[key] = entry;
  }
  return ui;
}

// 13 fields: the required text field first (the key field), then every other kind once. `number`
// renders the same control as `integer`, so only the wide schema has both.
const kinds13Props = Object.fromEntries([
  ['city', { type: 'string', title: 'City', default: 'Lisbon' }],
  ...kindSpecs.slice(1).filter(([key]) => key !== 'ratio'),
  nested,
]);
export const kinds13 = {
  message: 'Every kind of field, each with a default',
  requestedSchema: { type: 'object', properties: kinds13Props, required: ['city'] },
};

const flat = kindSpecs; // every kind but the nested object
const wideProps = { city: { type: 'string', title: 'City' } };
for (let i = 1; i < 100; i++) {
  const [key, schema] = flat[(i - 1) % flat.length];
  wideProps[`${key}_${i}`] = { ...schema, title: `${schema.title} ${i}` };
}
export const wide100 = {
  message: 'One hundred fields',
  requestedSchema: { type: 'object', properties: wideProps, required: ['city'] },
};

export const SCHEMAS = {
  weather: { label: 'weather (2 fields)', request: weather, peerUi: buildUi(weather.requestedSchema.properties), keyField: 'city' },
  kinds13: { label: '13 kinds + defaults', request: kinds13, peerUi: buildUi(kinds13.requestedSchema.properties), keyField: 'city' },
  wide100: { label: '100 fields', request: wide100, peerUi: buildUi(wide100.requestedSchema.properties), keyField: 'city' },
};

export function fieldCount(schema) {
  return Object.keys(schema.requestedSchema.properties).length;
}
