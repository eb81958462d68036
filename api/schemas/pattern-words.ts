import { DNS_LABEL_PATTERN, HOSTNAME_PATTERN } from '../../src/apis/v1alpha1/strings.ts';
import { DEPLOY_HOSTNAMES_PATTERN } from '../../src/platform/deploy-hostnames.ts';
import { DISPLAY_TEXT_PATTERN, DISPLAY_TEXT_RULE } from './display-text.ts';

/** What the patterns the API's schemas share ask for, in words: a refusal quotes these, not the expression. */
const WORDS: ReadonlyMap<string, string> = new Map([
  [DNS_LABEL_PATTERN, '1 to 63 lowercase letters, digits and dashes, starting and ending with a letter or digit'],
  [HOSTNAME_PATTERN, 'a host name in lowercase (labels separated by dots, such as www.example.com)'],
  [DEPLOY_HOSTNAMES_PATTERN, 'host names separated by commas (such as www.example.com,example.com), or empty'],
  [DISPLAY_TEXT_PATTERN, `text that is ${DISPLAY_TEXT_RULE}`],
]);

/** The words for `pattern`, when it is one of the shared ones. */
export function patternInWords(pattern: string): string | undefined {
  return WORDS.get(pattern);
}
