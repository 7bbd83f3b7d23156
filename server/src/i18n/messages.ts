import { engineErrorText } from './engine-errors.js';
/** Server-side messages in both UI languages. Keys are stable error codes the web app may also read. */
const messages = {
  bad_request: { en: 'Bad request.', ja: '不正なリクエストです。' },
  not_found: { en: 'Requested URL not exist', ja: '要求されたURLは存在しません' },
  dataset_not_found: { en: 'The dataset does not exist.', ja: 'データセットが存在しません。' },
  dataset_has_no_rows: { en: 'This is an image dataset: it has images, not table rows.', ja: 'これは画像データセットです。表の行はありません。' },
  job_not_found: { en: 'The job does not exist.', ja: 'ジョブが存在しません。' },
  file_not_found: { en: 'The file does not exist: {path}', ja: 'ファイルが存在しません: {path}' },
  unauthenticated: { en: 'Please sign in.', ja: 'サインインしてください。' },
  token_invalid: { en: 'Your session is invalid or has expired. Please sign in again.', ja: 'セッションが無効か期限切れです。もう一度サインインしてください。' },
  forbidden: { en: 'You do not have permission to do this.', ja: 'この操作を行う権限がありません。' },
  login_failed: { en: 'The e-mail address or password is incorrect.', ja: 'メールアドレスまたはパスワードが正しくありません。' },
  email_not_verified: { en: 'Please verify your e-mail address before signing in. Check your inbox for the verification link.', ja: 'サインインする前にメールアドレスを確認してください。受信トレイの確認リンクをご確認ください。' },
  local_login_disabled: { en: 'Sign-in with a password is switched off; use single sign-on.', ja: 'パスワードによるサインインは無効です。シングルサインオンをご利用ください。' },
  email_taken: { en: 'This e-mail address cannot be registered.', ja: 'このメールアドレスは登録できません。' },
  password_too_short: { en: 'Password must be at least 8 characters.', ja: 'パスワードは8文字以上にしてください。' },
  password_classes: { en: 'Password must contain at least 3 of: lowercase letters, uppercase letters, digits, symbols.', ja: 'パスワードには小文字・大文字・数字・記号のうち3種類以上を含めてください。' },
  password_personal: { en: 'Password must not contain part of your e-mail address or name.', ja: 'パスワードにメールアドレスや氏名の一部を含めないでください。' },
  required: { en: 'This field is required.', ja: 'この項目は必須です。' },
  name_required: { en: 'Please enter a name.', ja: '名前を入力してください。' },
  digits_only: { en: 'This cannot be digits only.', ja: '数字のみにはできません。' },
  decimals_max: { en: 'At most 7 digits after the decimal point.', ja: '小数点以下は7桁までです。' },
  one_threshold_rule: { en: 'Give one of threshold, target_miss_rate, ok_percentile.', ja: 'threshold・target_miss_rate・ok_percentile のいずれか1つを指定してください。' },
  invalid_email: { en: 'Please enter a valid e-mail address.', ja: '有効なメールアドレスを入力してください。' },
  file_too_large: { en: 'File size must be less than {size}.', ja: 'ファイルサイズは{size}未満にしてください。' },
  file_missing: { en: 'Please choose a file.', ja: 'ファイルを選択してください。' },
  file_not_csv: { en: 'Only CSV files (.csv, .tsv, .txt) can be registered as a table.', ja: 'テーブルとして登録できるのはCSVファイル（.csv、.tsv、.txt）のみです。' },
  csv_empty: { en: 'The file is empty.', ja: 'ファイルが空です。' },
  csv_binary: { en: 'The file is not a text CSV file (it contains binary data).', ja: 'このファイルはテキストのCSVではありません（バイナリデータを含みます）。' },
  csv_header_only: { en: 'The file has a header but no data rows.', ja: 'ファイルにはヘッダーのみがあり、データ行がありません。' },
  csv_too_many_columns: { en: 'The file has {count} columns; at most {max} columns are supported.', ja: 'ファイルの列数は{count}です。扱える列数は最大{max}です。' },
  csv_out_of_memory: { en: 'The file is too wide to convert within the server\'s memory limit ({count} columns). Please split it into files with fewer columns.', ja: 'ファイルの列数（{count}）が多すぎるため、サーバーのメモリ上限内で変換できません。列数の少ないファイルに分割してください。' },
  csv_line_too_long: { en: 'A line of the file is longer than {max}; is it really a CSV file?', ja: 'ファイルの行が{max}を超えています。CSVファイルか確認してください。' },
  csv_ragged: { en: 'Row {row} has {found} fields but the header has {expected}.', ja: '{row}行目のフィールド数は{found}ですが、ヘッダーは{expected}です。' },
  csv_duplicate_header: { en: 'The column name "{name}" appears more than once in the header.', ja: 'ヘッダーに列名「{name}」が重複しています。' },
  csv_unreadable: { en: 'The file could not be read as CSV: {reason}', ja: 'ファイルをCSVとして読み込めませんでした: {reason}' },
  datetime_column_missing: { en: 'The datetime column "{name}" is not in the file.', ja: '日時列「{name}」がファイルにありません。' },
  datetime_column_invalid: {
    en: 'The column "{name}" holds neither dates and times nor whole numbers giving the order of the rows ({count} values could not be read).',
    ja: '列「{name}」は日時でも行の順序を表す整数でもありません（読み取れない値が{count}件）。',
  },
  datetime_column_required: { en: 'Please choose the datetime column of the time series.', ja: '時系列の日時列を選択してください。' },
  paths_forbidden: { en: 'You cannot download this file: {path}', ja: 'このファイルはダウンロードできません: {path}' },
  job_not_cancellable: { en: 'The job has already finished.', ja: 'ジョブはすでに終了しています。' },
  job_interrupted: { en: 'The job was interrupted because the server or its worker stopped. Please run it again.', ja: 'サーバーまたはワーカーが停止したため、ジョブは中断されました。もう一度実行してください。' },
  job_cancelled: { en: 'The job was cancelled.', ja: 'ジョブはキャンセルされました。' },
  statistics_running: { en: 'Statistics are already being generated for this dataset.', ja: 'このデータセットの統計量はすでに生成中です。' },
  statistics_not_ready: { en: 'Statistics have not been generated for this dataset yet.', ja: 'このデータセットの統計量はまだ生成されていません。' },
  json_too_large: { en: 'The request body is larger than the {size} limit for JSON.', ja: 'リクエスト本文がJSONの上限{size}を超えています。' },
  body_too_large: { en: 'The request body is too large.', ja: 'リクエスト本文が大きすぎます。' },
  invalid_json: { en: 'The request body is not valid JSON.', ja: 'リクエスト本文が正しいJSONではありません。' },
  empty_json: { en: 'The request body is empty, but its content type says JSON.', ja: 'リクエスト本文が空ですが、コンテンツタイプはJSONです。' },
  unsupported_media_type: { en: 'This call does not accept a body of this content type.', ja: 'この呼び出しはこのコンテンツタイプの本文を受け付けません。' },
  uri_too_long: { en: 'The address is too long: each part of the path may have at most {max} characters.', ja: 'アドレスが長すぎます。パスの各部分は最大{max}文字です。' },
  bad_url: { en: 'The address is not valid (it contains a broken character encoding).', ja: 'アドレスが正しくありません（文字のエンコードが壊れています）。' },
  not_acceptable: { en: 'This call cannot answer in the format asked for.', ja: '要求された形式で応答できません。' },
  request_timeout: { en: 'The request took too long to arrive.', ja: 'リクエストの受信に時間がかかりすぎました。' },
  headers_too_large: { en: 'The request headers are too large.', ja: 'リクエストヘッダーが大きすぎます。' },
  method_not_allowed: { en: 'This call needs the {method} method.', ja: 'この呼び出しには{method}メソッドが必要です。' },
  platform_admin_only: { en: 'Only platform administrators can do this.', ja: 'この操作はプラットフォーム管理者のみが行えます。' },
  server_error: { en: 'An unexpected error occurred on the server.', ja: 'サーバーで予期しないエラーが発生しました。' },
} as const;

export type MessageKey = keyof typeof messages;
export type Lang = 'en' | 'ja';
/** A message an area defines in its own folder (features/<area>/messages.ts), in both languages. */
export interface LocalText {
  en: string;
  ja: string;
  /** The stable machine code an error answer carries (`error`, or a 422 item's `type`); without it, "error". */
  code?: string;
}
export type Message = MessageKey | LocalText;

export function langOf(acceptLanguage: string | undefined): Lang {
  return acceptLanguage && /^\s*ja/i.test(acceptLanguage) ? 'ja' : 'en';
}

export function localize(lang: Lang, key: Message, params: Record<string, string | number> = {}): string {
  const text: string = typeof key === 'string' ? messages[key][lang] : key[lang];
  // a parameter may be an engine error (e.g. the reason a preview job failed): it is said in the same language
  return text.replace(/\{(\w+)\}/g, (_, k: string) => (k in params ? (engineErrorText(String(params[k]), lang) ?? '') : `{${k}}`));
}
