/** Messages of hosted image models (image-serving.ts), in both languages ({name} placeholders filled by the error handler). */
export const IM = {
  imageMissing: {
    en: 'Send one image: multipart/form-data with the file in the field "image", or JSON {"image": "<base64 of the file>"}.',
    ja: '画像を1枚送ってください。multipart/form-data の「image」フィールドにファイルを入れるか、JSON {"image": "<ファイルの base64>"} で送ります。',
    code: 'image_missing',
  },
  imageOnePerRequest: { en: 'Send one image per request.', ja: '1 回のリクエストで送れる画像は1枚です。', code: 'image_one_per_request' },
  imageNotBase64: { en: 'The field "image" is not base64 text.', ja: '「image」フィールドが base64 のテキストではありません。', code: 'image_not_base64' },
  imageNotImage: {
    en: 'The file is not an image (JPEG, PNG, BMP or TIFF are accepted).',
    ja: 'ファイルが画像ではありません（JPEG・PNG・BMP・TIFF を受け付けます）。',
    code: 'image_not_image',
  },
  imageFormat: {
    en: 'The image is {format}; send JPEG, PNG, BMP or TIFF.',
    ja: '画像の形式が {format} です。JPEG・PNG・BMP・TIFF のいずれかで送ってください。',
    code: 'image_format_unsupported',
  },
  imageTooLarge: { en: 'The image is larger than {size}.', ja: '画像が上限の {size} を超えています。', code: 'image_too_large' },
  imagePixels: {
    en: 'The image has {pixels} pixels, more than the {max} accepted.',
    ja: '画像の画素数が {pixels} で、上限の {max} を超えています。',
    code: 'image_too_many_pixels',
  },
  imageHeatmapFlag: { en: 'heatmap must be true or false.', ja: 'heatmap は true か false にしてください。', code: 'image_heatmap_flag' },
} as const;
