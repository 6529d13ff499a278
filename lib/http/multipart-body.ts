import httpMultipartBodyParser from '@middy/http-multipart-body-parser';
import { assertBodySize, type BodyParser, runParser } from '#lib/http/body-parsers.ts';
import { UnsupportedMediaTypeError } from '#lib/http/errors.ts';

/** A multipart/form-data body (photo imports): @middy/http-multipart-body-parser (busboy) after the size check. */
export const multipartBody: BodyParser = {
  format: 'multipart',
  middleware(maxBytes) {
    const parser = httpMultipartBodyParser();
    return {
      before: async (request) => {
        assertBodySize(request.event, maxBytes);
        await runParser(
          parser,
          request,
          '@middy/http-multipart-body-parser',
          () => new UnsupportedMediaTypeError('Send the body as multipart/form-data'),
        );
      },
    };
  },
};
