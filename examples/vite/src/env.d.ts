declare const __APP_ID__: string;
declare const __BASE_URL__: string;
declare const __AUTH_URL__: string;
