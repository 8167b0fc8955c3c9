// A valid envelope whose every free-text string carries script payloads. Any
// payload that runs sets window.__pwned (or opens a dialog, which the tests
// also catch).

const PAYLOADS = [
  '<script>window.__pwned="script"</script>',
  '<img src=x onerror="window.__pwned=\'img\'">',
  '<svg onload="window.__pwned=\'svg\'"><circle r=1 /></svg>',
  '[click](javascript:window.__pwned="link")',
  '[click2](JaVaScRiPt:alert(1))',
  '<a href="javascript:window.__pwned=\'a\'">a</a>',
  '![img](javascript:window.__pwned="imgmd")',
  '<iframe src="javascript:window.__pwned=\'iframe\'"></iframe>',
  '<details open ontoggle="window.__pwned=\'details\'">',
  '"><img src=x onerror=alert(1)>',
  '{{evil}}',
];

/** All payloads in one string, with Markdown around them. */
export const hostile = (label) => `${label}: ${PAYLOADS.join(' \n\n')}`;

export function hostileEnvelope() {
  const h = hostile;
  return {
    version: '1.0',
    model: h('model'),
    messages: [
      {
        id: 'h-sys', role: 'system', timestamp: 1767225600000, segments: [
          { kind: 'static_var', name: 'evil', value: h('var value'), description: h('var description') },
          { kind: 'system_prompt', content: h('system'), collapsed: false },
          { kind: 'memory', items: [{ title: h('memory title'), content: h('memory content') }], collapsed: false, description: h('memory description') },
          {
            kind: 'skills', collapsed: false, description: h('skills description'), items: [
              { name: 'evil-skill', description: h('skill description'), body: h('skill body'), loaded: true },
              { name: h('bad skill name'), description: h('skill 2'), body: h('skill 2 body') },
            ],
          },
          {
            kind: 'tool_overview', collapsed: false, items: [
              {
                name: 'evil_tool', description: h('tool description'), parameters: h('tool parameters'),
                schema: { type: 'object', description: h('schema description'), properties: { [h('prop')]: { type: 'string', description: h('prop description') } } },
              },
            ],
          },
        ],
      },
      {
        id: 'h-user', role: 'user', timestamp: 1767225601000, segments: [
          { kind: 'text', content: h('text') },
          { kind: 'long_text', content: h('long text'), charCount: [...h('long text')].length, collapsed: false },
          { kind: 'document', fileName: h('file name'), mimeType: h('mime'), snippet: h('snippet'), sizeBytes: 1234, parsedContent: h('parsed') },
          { kind: 'media', mediaType: 'image', url: 'data:image/svg+xml,<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=\'svgimg\'"><script>window.__pwned="svgscript"</script></svg>', altText: h('alt') },
          { kind: 'media', mediaType: 'image', url: 'https://127.0.0.1:1/x.png?"><img src=x onerror=alert(1)>', altText: h('alt2') },
          { kind: 'media', mediaType: 'audio', url: 'data:audio/mp3;base64,<script>window.__pwned=1</script>', altText: h('audio alt') },
          { kind: 'media', mediaType: 'video', url: 'https://127.0.0.1:1/v.mp4#"><script>window.__pwned=1</script>', altText: h('video alt') },
        ],
      },
      {
        id: 'h-asst', role: 'assistant', timestamp: 1767225602000, segments: [
          { kind: 'text', content: h('assistant text') },
          { kind: 'tool_call_request', toolName: 'evil_tool', callId: h('call id'), collapsed: false, arguments: { [h('arg key')]: h('arg value'), nested: { deep: h('nested') }, long: h('long').repeat(5) } },
        ],
      },
      {
        id: 'h-tool', role: 'tool', timestamp: 1767225603000, segments: [
          { kind: 'tool_call_result', toolName: 'evil_tool', callId: h('call id'), result: h('result'), success: false, collapsed: false },
        ],
      },
    ],
  };
}
