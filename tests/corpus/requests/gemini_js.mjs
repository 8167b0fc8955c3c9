// Runs @google/genai (JS) against a loopback server; writes each body it sent to OUT/<name>.json.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { GoogleGenAI, Type, FunctionCallingConfigMode, HarmCategory, HarmBlockThreshold, createPartFromUri, createPartFromBase64, createUserContent } from '@google/genai';

const OUT = process.argv[2];
let last = null;
const reply = JSON.stringify({candidates: [{content: {role: 'model', parts: [{text: 'OK.'}]}, finishReason: 'STOP', index: 0}],
  usageMetadata: {promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7}});
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    last = {url: req.url, body: Buffer.concat(chunks)};
    res.writeHead(200, {'content-type': 'application/json'});
    res.end(reply);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;
const ai = new GoogleGenAI({apiKey: 'loopback-key', httpOptions: {baseUrl: base}});
const take = (name) => {
  fs.writeFileSync(path.join(OUT, name + '.json'), last.body);
  fs.writeFileSync(path.join(OUT, name + '.url'), last.url + '\n');
  last = null;
};
const M = 'gemini-2.5-flash';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4/9+eiBggFABAqgjRw52+kQAAAABJRU5ErkJggg==';

await ai.models.generateContent({model: M, contents: 'Explain how AI works in a few words'});
take('sdk-js-text');

await ai.models.generateContent({model: M, contents: [createUserContent([createPartFromBase64(PNG, 'image/png'), 'Caption this image.'])],
  config: {systemInstruction: 'You are a cat. Your name is Neko.', temperature: 0.1, maxOutputTokens: 500}});
take('sdk-js-image-base64-system');

const controlLight = {name: 'controlLight', description: 'Set the brightness and color temperature of a room light.',
  parameters: {type: Type.OBJECT, properties: {brightness: {type: Type.NUMBER, description: 'Light level from 0 to 100.'},
    colorTemperature: {type: Type.STRING, enum: ['daylight', 'cool', 'warm']}}, required: ['brightness', 'colorTemperature']}};
await ai.models.generateContent({model: M, contents: 'Dim the lights so the room feels cozy and warm.',
  config: {tools: [{functionDeclarations: [controlLight]}], toolConfig: {functionCallingConfig: {mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['controlLight']}}}});
take('sdk-js-function-calling-config');

await ai.models.generateContent({model: M, contents: [
  {role: 'user', parts: [{text: 'Dim the lights so the room feels cozy and warm.'}]},
  {role: 'model', parts: [{functionCall: {name: 'controlLight', args: {brightness: 25, colorTemperature: 'warm'}}}]},
  {role: 'user', parts: [{functionResponse: {name: 'controlLight', response: {result: {brightness: 25, colorTemperature: 'warm'}}}}]},
], config: {tools: [{functionDeclarations: [controlLight]}]}});
take('sdk-js-function-response');

await ai.models.generateContent({model: M, contents: createUserContent([createPartFromUri('https://generativelanguage.googleapis.com/v1beta/files/sample-mp3', 'audio/mpeg'), 'Describe this audio clip']),
  config: {safetySettings: [{category: HarmCategory.HARM_CATEGORY_HARASSMENT, threshold: HarmBlockThreshold.BLOCK_LOW_AND_ABOVE}]}});
take('sdk-js-file-uri-safety');

await ai.models.generateContent({model: M, contents: 'List 3 cookie recipes.', config: {responseMimeType: 'application/json',
  responseSchema: {type: Type.ARRAY, items: {type: Type.OBJECT, properties: {recipeName: {type: Type.STRING}, ingredients: {type: Type.ARRAY, items: {type: Type.STRING}}}, propertyOrdering: ['recipeName', 'ingredients']}}}});
take('sdk-js-response-schema');

await ai.models.generateContent({model: M, contents: 'What is the sum of the first 50 prime numbers?', config: {tools: [{codeExecution: {}}, {googleSearch: {}}], thinkingConfig: {thinkingBudget: 0}}});
take('sdk-js-code-execution-search-no-thinking');

const chat = ai.chats.create({model: M, history: [{role: 'user', parts: [{text: 'Hello'}]}, {role: 'model', parts: [{text: 'Great to meet you. What would you like to know?'}]}]});
await chat.sendMessage({message: 'I have 2 dogs in my house.'});
take('sdk-js-chat-history');

await ai.models.generateContent({model: 'gemini-3-pro-preview', contents: [
  {role: 'user', parts: [{text: 'Check flight AA100.'}]},
  {role: 'model', parts: [{functionCall: {id: 'fc-1', name: 'check_flight', args: {flight: 'AA100'}}, thoughtSignature: 'CpYBAdHtim9y+Pq/3G0Ezz5SxJw='}]},
  {role: 'user', parts: [{functionResponse: {id: 'fc-1', name: 'check_flight', response: {status: 'delayed'}}}]},
], config: {tools: [{functionDeclarations: [{name: 'check_flight', description: 'Gets a flight status.', parametersJsonSchema: {type: 'object', properties: {flight: {type: 'string'}}, required: ['flight']}}]}],
  thinkingConfig: {thinkingLevel: 'high', includeThoughts: true}}});
take('sdk-js-thought-signature-ids');

server.close();
console.log('done');
