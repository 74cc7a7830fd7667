export {
  defaultTemplateDirs,
  listTemplates,
  loadTemplate,
  packageTemplatesDir,
  readTemplate,
  templateKey,
  type Template,
  type TemplateInfo,
} from './catalogue.js';
export { firstParagraph, readHeaderComment } from './header.js';
export { instantiateTemplate, renderParams, type Instantiation } from './instantiate.js';
