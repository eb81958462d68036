import { Type } from 'typebox';
import { DNS_LABEL_PATTERN } from '../../src/apis/v1alpha1/strings.ts';
import { AppId } from './app.ts';
import { ProjectId } from './project.ts';

/** A binding's name: the start of its two variables (`<name>_URL`, `<name>_TOKEN`). */
const BindingName = Type.String({
  minLength: 1,
  maxLength: 120,
  pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
  description: 'Binding name: the app reads `<name>_URL` and `<name>_TOKEN` (letters, digits and `_`, not starting with a digit).',
});

export const BindingParams = Type.Object({ projectId: ProjectId, appId: AppId, name: BindingName }, { additionalProperties: false });

export const BindingBody = Type.Object(
  {
    database: Type.String({ minLength: 1, maxLength: 63, pattern: DNS_LABEL_PATTERN, description: 'A database of the project.' }),
    access: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('read-only')], { description: '`read-only` (the default) or `full` (reads and writes).' })),
  },
  { additionalProperties: false },
);

export const Binding = Type.Object(
  {
    name: Type.String(),
    database: Type.String(),
    access: Type.String({ description: '`read-only` or `full`.' }),
    variables: Type.Object(
      { url: Type.String({ description: 'The variable holding the database’s URL.' }), token: Type.String({ description: 'The variable holding its token (never shown).' }) },
      { description: 'The variables the runtime gives the app.' },
    ),
  },
  { description: 'A database bound to the app: no response holds its token.' },
);
