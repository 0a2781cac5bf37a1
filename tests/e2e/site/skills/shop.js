// The tea shop: add to cart by product, a cart that counts; checking out takes real input only.
'use strict';
const cart = [];
function render() {
  const count = cart.reduce((n, it) => n + it.qty, 0);
  const total = cart.reduce((n, it) => n + it.qty * it.price, 0);
  document.getElementById('cart-count').textContent = String(count);
  document.getElementById('cart-total').textContent = total.toFixed(2);
  const ul = document.getElementById('cart-items');
  ul.replaceChildren(...cart.map((it) => {
    const li = document.createElement('li');
    li.textContent = `${it.qty} × ${it.name}`;
    return li;
  }));
}
for (const product of document.querySelectorAll('.product')) {
  product.querySelector('.add').addEventListener('click', () => {
    const qty = Math.max(1, parseInt(product.querySelector('.qty').value, 10) || 1);
    const name = product.querySelector('.name').textContent;
    const price = parseFloat(product.querySelector('.price').textContent);
    const have = cart.find((it) => it.name === name);
    if (have) have.qty += qty;
    else cart.push({ name, price, qty });
    render();
  });
}
document.getElementById('checkout').addEventListener('click', (e) => {
  document.getElementById('checkout-state').textContent = e.isTrusted ? `checked out ${cart.length} line(s)` : 'refused: not real input';
});
