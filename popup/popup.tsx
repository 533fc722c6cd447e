import { render } from 'preact';
import { Popup } from './components/Popup.js';

const app = document.getElementById('app')!;
app.textContent = '';
render(<Popup />, app);
