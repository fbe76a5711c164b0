// The npm openai package's client.embeddings.create against a Cachegate gateway, for EmbeddingItemsNodeIT: a
// batch, then a half-seen batch (its items interleaved with new ones), each compared vector for vector with the
// backend's own answer; in the package's default encoding (base64, decoded by the package) and in float.
// Two phases, so the test can wait between them for the first batch's items to be stored:
// Usage: node embeddings.mjs <first|merged> <gatewayBaseURL> <backendBaseURL> <model> <run>
import OpenAI from 'openai';

const [phase, gatewayURL, backendURL, model, run] = process.argv.slice(2);
const viaGateway = new OpenAI({ baseURL: gatewayURL, apiKey: 'x', maxRetries: 0 });
const direct = new OpenAI({ baseURL: backendURL, apiKey: 'x', maxRetries: 0 });

const texts = (from, count, tag) =>
  Array.from({ length: count }, (_, i) => `node passage ${String(from + i).padStart(4, '0')} ${tag} ${run}`);

const same = (a, b) =>
  a.data.length === b.data.length &&
  a.data.every((d, i) => d.index === i && d.embedding.length === b.data[i].embedding.length &&
    d.embedding.every((v, j) => v === b.data[i].embedding[j]));

async function round(format) {
  const extra = format ? { encoding_format: format } : {};
  const tag = format ?? 'default';
  const seen = texts(0, 6, tag);
  const unseen = texts(6, 6, tag);
  const input = phase === 'first' ? seen : seen.flatMap((s, i) => [unseen[i], s]);
  const { data, response } = await viaGateway.embeddings.create({ model, input, ...extra }).withResponse();
  const expected = await direct.embeddings.create({ model, input, ...extra });
  return {
    cache: response.headers.get('x-cache'),
    items: response.headers.get('x-cache-items'),
    count: data.data.length,
    sameAsBackend: same(data, expected),
    promptTokens: data.usage.prompt_tokens,
    backendPromptTokens: expected.usage.prompt_tokens,
  };
}

const result = { default: await round(undefined), float: await round('float') };
console.log(JSON.stringify(result));
