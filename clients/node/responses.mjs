// The npm openai package's client.responses.create against a Cachegate gateway, for ResponsesNodeIT:
// the same request twice whole, then another twice streamed; prints what each call saw as one JSON line.
// Usage: node responses.mjs <baseURL> <apiKey> <model> <input>
import OpenAI from 'openai';

const [baseURL, apiKey, model, input] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
const params = { model, input, instructions: 'be helpful', temperature: 0 };

async function whole() {
  const { data, response } = await client.responses.create(params).withResponse();
  return { cache: response.headers.get('x-cache'), text: data.output_text, id: data.id };
}

async function streamed() {
  const { data: stream, response } = await client.responses
    .create({ ...params, input: `${input} (streamed)`, stream: true })
    .withResponse();
  let text = '';
  const types = [];
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'response.output_text.delta') text += event.delta;
  }
  return { cache: response.headers.get('x-cache'), text, first: types[0], last: types.at(-1) };
}

const result = { whole: [await whole(), await whole()], streamed: [await streamed(), await streamed()] };
console.log(JSON.stringify(result));
