# Textos que só o relay mostra: a sua página de resposta (/answer/) e o e-mail que leva o link de uma
# pergunta. Entram só no relay (a feature `relay` do núcleo), nunca no elemento.

## A página de resposta
mcp-elicitation-relay-page-title = Responder a uma pergunta
mcp-elicitation-relay-page-loading = Carregando a pergunta…
mcp-elicitation-relay-page-sent = Enviado. Obrigado, você pode fechar esta página.
mcp-elicitation-relay-page-declined = Recusado. Você pode fechar esta página.
mcp-elicitation-relay-page-already-answered = Já respondida
mcp-elicitation-relay-page-expired = Expirada
mcp-elicitation-relay-page-withdrawn = Retirada
mcp-elicitation-relay-page-unknown = Este link não é válido, ou a pergunta não está mais guardada.
mcp-elicitation-relay-page-unreachable = Não foi possível contatar o relay. Verifique a conexão e tente de novo.
mcp-elicitation-relay-page-retry = Tentar de novo
mcp-elicitation-relay-page-needs-script = Esta página precisa de JavaScript para mostrar a pergunta.
mcp-elicitation-relay-page-sending = Enviando…
mcp-elicitation-relay-page-not-sent = Não enviado. A pergunta continua aberta: você pode respondê-la com este link até ela expirar.
mcp-elicitation-relay-page-show-again = Mostrar a pergunta de novo
# O link de uma opção no e-mail (#t=…&c=n) abre a página com uma resposta, enviada só com "Confirmar".
mcp-elicitation-relay-page-from = De
mcp-elicitation-relay-page-your-answer = Sua resposta:
mcp-elicitation-relay-page-confirm = Confirmar
mcp-elicitation-relay-page-all-choices = Mostrar todas as opções

## O e-mail com o link de uma pergunta
mcp-elicitation-relay-email-subject = { $server } precisa da sua resposta
mcp-elicitation-relay-email-reminder-subject = Lembrete: { $server } precisa da sua resposta
mcp-elicitation-relay-email-intro = { $server } pergunta:
mcp-elicitation-relay-email-answer = Responder
mcp-elicitation-relay-email-link-text = Abra este link para responder:
mcp-elicitation-relay-email-expires = A pergunta pode ser respondida até { $expires }.
mcp-elicitation-relay-email-caution = Quem tiver este link pode responder a esta pergunta, então não encaminhe esta mensagem.
mcp-elicitation-relay-email-choices = Escolha a sua resposta; você a confirma na página que se abre:
